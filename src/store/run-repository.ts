import { sql, type Insertable, type Kysely, type Selectable } from 'kysely'
import type { AgentRunStepsTable, AgentRunsTable, Database, RunInputsTable } from './database.js'

export type RunRow = Selectable<AgentRunsTable>
export type RunStepRow = Selectable<AgentRunStepsTable>
export type RunInputRow = Selectable<RunInputsTable>
/** A step as listed: without its model request, read alone and only when asked for. */
export type RunStepListed = Omit<RunStepRow, 'request'>

/** What a finished model step or tool call adds to its run's totals. */
export interface RunTotalsChange {
  model_steps?: number
  input_tokens?: number
  output_tokens?: number
  cached_input_tokens?: number
  cost_usd?: number | null
  model_ms?: number
  tool_ms?: number
  /** Time a tool call waited for a person's input, while the run went on holding it. */
  approval_wait_ms?: number
}

const LISTED = [
  'run_id',
  'idx',
  'kind',
  'text',
  'tool_name',
  'tool_call_id',
  'input',
  'output',
  'error',
  'status',
  'call_id',
  'approval_id',
  'created_at',
  'rev',
  'started_at',
  'finished_at',
  'duration_ms',
  'step_number',
  'model_provider',
  'model_id',
  'input_tokens',
  'output_tokens',
  'cached_input_tokens',
  'cache_write_tokens',
  'reasoning_tokens',
  'cost_usd',
  'finish_reason',
  'first_chunk_ms',
] as const satisfies ReadonlyArray<keyof RunStepListed>

export class RunRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** A new run; its totals start at nothing when not given. */
  async insert(row: Insertable<AgentRunsTable>): Promise<void> {
    await this.db.insertInto('agent_runs').values(row).execute()
  }

  get(id: string): Promise<RunRow | undefined> {
    return this.db.selectFrom('agent_runs').selectAll().where('id', '=', id).executeTakeFirst()
  }

  list(q: { agentId?: string; status?: string; test?: boolean; cursor?: string; limit: number }): Promise<RunRow[]> {
    let query = this.db.selectFrom('agent_runs').selectAll()
    if (q.test !== undefined) query = query.where('test', '=', q.test ? 1 : 0)
    if (q.agentId) query = query.where('agent_id', '=', q.agentId)
    if (q.status) query = query.where('status', '=', q.status)
    if (q.cursor) query = query.where('id', '<', q.cursor)
    return query
      .orderBy('id', 'desc')
      .limit(q.limit + 1)
      .execute()
  }

  async update(id: string, changes: Partial<RunRow>): Promise<void> {
    await this.db.updateTable('agent_runs').set(changes).where('id', '=', id).execute()
  }

  /** Move a run between statuses; false when another manager got there first. */
  async transition(id: string, from: string, to: string, changes: Partial<RunRow> = {}): Promise<boolean> {
    const result = await this.db
      .updateTable('agent_runs')
      .set({ ...changes, status: to })
      .where('id', '=', id)
      .where('status', '=', from)
      .executeTakeFirst()
    return Number(result.numUpdatedRows) === 1
  }

  /** Fail the runs left running by managers that stopped, and the model calls they left running; returns how many runs. */
  async failOrphaned(aliveManagerIds: string[], now: string): Promise<number> {
    const error = 'interrupted: the manager driving the run stopped'
    const failed = await this.db
      .updateTable('agent_runs')
      .set({ status: 'failed', error, updated_at: now, finished_at: now })
      .where('status', '=', 'running')
      .where((eb) => eb.or([eb('manager_id', 'is', null), eb('manager_id', 'not in', aliveManagerIds)]))
      .returning('id')
      .execute()
    await this.goneInputs(aliveManagerIds, now)
    if (failed.length === 0) return 0
    // A run has one model call running at most: it takes the run's next write number.
    await this.db
      .updateTable('agent_run_steps')
      .set((eb) => ({
        status: 'error',
        error,
        finished_at: now,
        rev: eb
          .selectFrom('agent_run_steps as s')
          .select(sql<number>`max(s.rev) + 1`.as('next'))
          .whereRef('s.run_id', '=', 'agent_run_steps.run_id'),
      }))
      .where(
        'run_id',
        'in',
        failed.map((r) => r.id),
      )
      .where('kind', '=', 'model')
      .where('status', '=', 'running')
      .execute()
    return failed.length
  }

  steps(runId: string): Promise<RunStepListed[]> {
    return this.db.selectFrom('agent_run_steps').select(LISTED).where('run_id', '=', runId).orderBy('idx').execute()
  }

  /** The steps stored or changed after write `rev`, in the order they were written. */
  stepsAfter(runId: string, rev: number): Promise<RunStepListed[]> {
    return this.db.selectFrom('agent_run_steps').select(LISTED).where('run_id', '=', runId).where('rev', '>', rev).orderBy('rev').execute()
  }

  /** One step's kind, if the run has it. */
  async stepKind(runId: string, idx: number): Promise<string | undefined> {
    const row = await this.db.selectFrom('agent_run_steps').select('kind').where('run_id', '=', runId).where('idx', '=', idx).executeTakeFirst()
    return row?.kind
  }

  /** The stored requests (deltas, JSON) of the run's model steps (up to step `upTo`), in order. */
  async requests(runId: string, upTo?: number): Promise<string[]> {
    let query = this.db.selectFrom('agent_run_steps').select('request').where('run_id', '=', runId).where('kind', '=', 'model').where('request', 'is not', null)
    if (upTo !== undefined) query = query.where('idx', '<=', upTo)
    const rows = await query.orderBy('idx').execute()
    return rows.map((row) => row.request!)
  }

  /** Add to a run's totals, in the database (two managers never drive one run at once, but a sum is never lost). */
  async addTotals(runId: string, change: RunTotalsChange): Promise<void> {
    const set: Record<string, unknown> = {}
    for (const [column, value] of Object.entries(change)) {
      if (value === null || value === undefined || value === 0) continue
      // cost_usd stays null until a step has a cost.
      set[column] = column === 'cost_usd' ? sql`coalesce(cost_usd, 0) + ${value}` : sql`${sql.ref(column)} + ${value}`
    }
    if (Object.keys(set).length) await this.db.updateTable('agent_runs').set(set).where('id', '=', runId).execute()
  }

  /** Each run's status and its steps' latest write: what a follower compares to see that a run changed. */
  heads(ids: readonly string[]): Promise<Array<{ id: string; status: string; rev: number | null }>> {
    if (ids.length === 0) return Promise.resolve([])
    return this.db
      .selectFrom('agent_runs')
      .select((eb) => [
        'agent_runs.id',
        'agent_runs.status',
        eb
          .selectFrom('agent_run_steps')
          .select((s) => s.fn.max('rev').as('rev'))
          .whereRef('agent_run_steps.run_id', '=', 'agent_runs.id')
          .as('rev'),
      ])
      .where('agent_runs.id', 'in', ids)
      .execute() as Promise<Array<{ id: string; status: string; rev: number | null }>>
  }

  async addSteps(rows: RunStepRow[]): Promise<void> {
    if (rows.length) await this.db.insertInto('agent_run_steps').values(rows).execute()
  }

  async updateStep(runId: string, idx: number, changes: Partial<RunStepRow>): Promise<void> {
    await this.db.updateTable('agent_run_steps').set(changes).where('run_id', '=', runId).where('idx', '=', idx).execute()
  }

  async addInput(row: RunInputRow): Promise<void> {
    await this.db.insertInto('run_inputs').values(row).execute()
  }

  getInput(id: string): Promise<RunInputRow | undefined> {
    return this.db.selectFrom('run_inputs').selectAll().where('id', '=', id).executeTakeFirst()
  }

  inputs(runId: string): Promise<RunInputRow[]> {
    return this.db.selectFrom('run_inputs').selectAll().where('run_id', '=', runId).orderBy('created_at').orderBy('id').execute()
  }

  /**
   * Decide a pending input, once: false when it was decided (or gone) already. An answer (not an
   * expiry) counts only before `expires_at`, so it never wins against the timeout it came after.
   */
  async decideInput(id: string, changes: Pick<RunInputRow, 'status' | 'decided_at'> & Partial<RunInputRow>, answer: boolean): Promise<boolean> {
    let query = this.db.updateTable('run_inputs').set(changes).where('id', '=', id).where('status', '=', 'pending')
    if (answer) query = query.where('expires_at', '>', changes.decided_at!)
    const result = await query.executeTakeFirst()
    return Number(result.numUpdatedRows) === 1
  }

  /** Replace an answer's content by what is kept of it, if it is still `raw`: one statement, so atomic on either database. */
  async keepInputContent(id: string, raw: string, kept: string): Promise<void> {
    await this.db.updateTable('run_inputs').set({ content: kept }).where('id', '=', id).where('content', '=', raw).execute()
  }

  /** Mark gone the pending inputs whose calls were held by managers not among these; returns how many. */
  async goneInputs(aliveManagerIds: string[], now: string): Promise<number> {
    let query = this.db.updateTable('run_inputs').set({ status: 'gone', decided_at: now }).where('status', '=', 'pending')
    if (aliveManagerIds.length) query = query.where('manager_id', 'not in', aliveManagerIds)
    const result = await query.executeTakeFirst()
    return Number(result.numUpdatedRows)
  }

  /** Mark gone the pending inputs this manager holds (it stops: the calls waiting for them end). */
  async goneInputsOf(managerId: string, now: string): Promise<number> {
    const result = await this.db
      .updateTable('run_inputs')
      .set({ status: 'gone', decided_at: now })
      .where('status', '=', 'pending')
      .where('manager_id', '=', managerId)
      .executeTakeFirst()
    return Number(result.numUpdatedRows)
  }
}
