import type { Kysely, Selectable } from 'kysely'
import type { AgentRunStepsTable, AgentRunsTable, Database } from './database.js'

export type RunRow = Selectable<AgentRunsTable>
export type RunStepRow = Selectable<AgentRunStepsTable>

export class RunRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: RunRow): Promise<void> {
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

  /** Fail the runs left running by managers that stopped; returns how many. */
  async failOrphaned(aliveManagerIds: string[], now: string): Promise<number> {
    const result = await this.db
      .updateTable('agent_runs')
      .set({ status: 'failed', error: 'interrupted: the manager driving the run stopped', updated_at: now, finished_at: now })
      .where('status', '=', 'running')
      .where((eb) => eb.or([eb('manager_id', 'is', null), eb('manager_id', 'not in', aliveManagerIds)]))
      .executeTakeFirst()
    return Number(result.numUpdatedRows)
  }

  steps(runId: string): Promise<RunStepRow[]> {
    return this.db.selectFrom('agent_run_steps').selectAll().where('run_id', '=', runId).orderBy('idx').execute()
  }

  /** The steps stored or changed after write `rev`, in the order they were written. */
  stepsAfter(runId: string, rev: number): Promise<RunStepRow[]> {
    return this.db.selectFrom('agent_run_steps').selectAll().where('run_id', '=', runId).where('rev', '>', rev).orderBy('rev').execute()
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
}
