import { sql, type Kysely } from 'kysely'
import type { Database } from './database.js'

/** At most this many calls are read for one tree (the tree shows at most 2,000 spans). */
export const TREE_CALL_CAP = 2_000

// Bound the walk up a tree: a link a client asserted (an MCP origin) could otherwise lead round in a circle.
const MAX_UP_HOPS = 50
const MAX_DEPTH = 200
const CHUNK = 500

export interface TreeCall {
  call_id: string
  parent_call_id: string | null
  origin_call_id: string | null
  skill_key: string
  conversation_id: string | null
  status: string
  started_at: string
  finished_at: string | null
  edge_name: string | null
  spans: string | null
}

export interface TreeRun {
  id: string
  agent_id: string
  status: string
  created_at: string
  finished_at: string | null
  test: number
}

export interface TreeModelStep {
  run_id: string
  idx: number
  status: string | null
  started_at: string
  finished_at: string | null
  model: string | null
  input_tokens: number | null
  output_tokens: number | null
  cost_usd: number | null
}

export interface TreeApproval {
  id: string
  call_id: string
  executed_call_id: string | null
  skill_key: string
  status: string
  created_at: string
  decided_at: string | null
  expires_at: string
}

/** What a call tree is built from (`buildCallTree` in src/audit). */
export interface TreeRows {
  /** The root's span id: `call:<id>` or `run:<id>`. */
  rootId: string
  calls: TreeCall[]
  runs: TreeRun[]
  modelSteps: TreeModelStep[]
  approvals: TreeApproval[]
  /** The walk stopped at its cap: there were more calls. */
  truncated: boolean
}

/** The conversation an agent run's calls carry: `run:<id>`, or `test-run:<id>` for a test run. */
export const runConversation = (run: { id: string; test: number }): string => `${run.test ? 'test-run' : 'run'}:${run.id}`

const RUN_CONVERSATION = /^(test-)?run:(.+)$/

const CALL_COLUMNS = [
  'call_id',
  'parent_call_id',
  'origin_call_id',
  'skill_key',
  'conversation_id',
  'status',
  'started_at',
  'finished_at',
  'edge_name',
  'spans',
] as const

/**
 * The rows of one call tree, by walks of the audit's own links (recursive CTEs over the
 * parent and origin indexes, the conversation index for a run, the approvals of a refused call):
 * from any call up to its root, then down from the root.
 */
export class CallTreeRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** The tree a call belongs to, from its root (its agent run when it has one); undefined for an unknown call. */
  async ofCall(callId: string): Promise<TreeRows | undefined> {
    let current = await this.db.selectFrom('audit_calls').select(['call_id', 'approval_id', 'conversation_id']).where('call_id', '=', callId).executeTakeFirst()
    if (!current) return undefined
    for (let hop = 0; hop < MAX_UP_HOPS; hop++) {
      const top = await this.#top(current.call_id)
      // A call that ran on an approval hangs under the call that asked for it.
      const asked =
        top.approval_id === null
          ? undefined
          : await this.db
              .selectFrom('approvals')
              .select('call_id')
              .where('id', '=', top.approval_id)
              .where('executed_call_id', '=', top.call_id)
              .where('call_id', '<>', top.call_id)
              .executeTakeFirst()
      const next =
        asked &&
        (await this.db.selectFrom('audit_calls').select(['call_id', 'approval_id', 'conversation_id']).where('call_id', '=', asked.call_id).executeTakeFirst())
      if (next) {
        current = next
        continue
      }
      const run = await this.#runOf(top.conversation_id, top.caller_id)
      if (run) return this.ofRun(run.id)
      return this.#down(`call:${top.call_id}`, [top.call_id], null)
    }
    return this.#down(`call:${current.call_id}`, [current.call_id], null)
  }

  /** An agent run's tree: the run, its model steps, its calls and theirs; undefined for an unknown run. */
  async ofRun(runId: string): Promise<TreeRows | undefined> {
    const run = await this.db
      .selectFrom('agent_runs')
      .select(['id', 'agent_id', 'status', 'created_at', 'finished_at', 'test'])
      .where('id', '=', runId)
      .executeTakeFirst()
    if (!run) return undefined
    const rows = await this.#down(`run:${run.id}`, [], { id: runConversation(run), callerId: `agent:${run.agent_id}` })
    rows.runs.push(run)
    rows.modelSteps.push(...(await this.#modelSteps(run.id)))
    return rows
  }

  /** The topmost call above this one through `ctx.invoke` parents and MCP origins. */
  async #top(callId: string): Promise<{ call_id: string; approval_id: string | null; conversation_id: string | null; caller_id: string }> {
    const { rows } = await sql<{ call_id: string; approval_id: string | null; conversation_id: string | null; caller_id: string }>`
      with recursive up(call_id, next_id, depth) as (
        select call_id, coalesce(parent_call_id, origin_call_id), 0 from audit_calls where call_id = ${callId}
        union all
        select a.call_id, coalesce(a.parent_call_id, a.origin_call_id), up.depth + 1
        from audit_calls a join up on a.call_id = up.next_id
        where up.depth < ${MAX_DEPTH}
      )
      select a.call_id, a.approval_id, a.conversation_id, a.caller_id from up join audit_calls a on a.call_id = up.call_id
      order by up.depth desc limit 1`.execute(this.db)
    return rows[0]!
  }

  async #runOf(conversationId: string | null, callerId: string) {
    const match = conversationId === null ? null : RUN_CONVERSATION.exec(conversationId)
    if (!match) return undefined
    const run = await this.db.selectFrom('agent_runs').select(['id', 'test', 'agent_id']).where('id', '=', match[2]!).executeTakeFirst()
    // A conversation id is the caller's to choose: only the run's own kind of conversation, called by its agent, is its.
    return run && runConversation(run) === conversationId && callerId === `agent:${run.agent_id}` ? run : undefined
  }

  /** Every call below the seeds (or the conversation's calls), and the approvals between them. */
  async #down(rootId: string, seeds: string[], conversation: { id: string; callerId: string } | null): Promise<TreeRows> {
    const found = new Set<string>()
    const approvals = new Map<string, TreeApproval>()
    // A run's calls are those its agent made in the run's conversation: anyone may name that conversation in a call of theirs.
    let anchor =
      conversation === null ? null : sql`select call_id from audit_calls where conversation_id = ${conversation.id} and caller_id = ${conversation.callerId}`
    let next = seeds
    let truncated = false
    while ((anchor !== null || next.length > 0) && !truncated) {
      const room = TREE_CALL_CAP + 1 - found.size
      const { rows } = await sql<{ call_id: string }>`
        with recursive t(call_id) as (
          ${anchor ?? sql`select call_id from audit_calls where call_id in (${sql.join(next)})`}
          union
          select a.call_id from audit_calls a join t on a.parent_call_id = t.call_id or a.origin_call_id = t.call_id
        )
        select call_id from t limit ${room}`.execute(this.db)
      anchor = null
      const fresh = rows.map((r) => r.call_id).filter((id) => !found.has(id))
      for (const id of fresh) found.add(id)
      if (found.size > TREE_CALL_CAP) {
        truncated = true
        found.delete(fresh.at(-1)!)
      }
      // The approvals the new calls asked for, and the calls that ran on them: the next round's seeds.
      next = []
      for (let i = 0; i < fresh.length; i += CHUNK) {
        const asked = await this.db
          .selectFrom('approvals')
          .select(['id', 'call_id', 'executed_call_id', 'skill_key', 'status', 'created_at', 'decided_at', 'expires_at'])
          .where('call_id', 'in', fresh.slice(i, i + CHUNK))
          .execute()
        for (const approval of asked) {
          approvals.set(approval.id, approval)
          const executed = approval.executed_call_id
          if (executed !== null && !found.has(executed)) next.push(executed)
        }
      }
    }
    const ids = [...found]
    const calls = []
    for (let i = 0; i < ids.length; i += CHUNK) {
      calls.push(
        ...(await this.db
          .selectFrom('audit_calls')
          .select(CALL_COLUMNS)
          .where('call_id', 'in', ids.slice(i, i + CHUNK))
          .execute()),
      )
    }
    return { rootId, calls, runs: [], modelSteps: [], approvals: [...approvals.values()], truncated }
  }

  async #modelSteps(runId: string): Promise<TreeModelStep[]> {
    const rows = await this.db
      .selectFrom('agent_run_steps')
      .select(['run_id', 'idx', 'status', 'created_at', 'started_at', 'finished_at', 'model_id', 'input_tokens', 'output_tokens', 'cost_usd'])
      .where('run_id', '=', runId)
      .where('kind', '=', 'model')
      .orderBy('idx')
      .execute()
    return rows.map(({ created_at, started_at, model_id, ...row }) => ({ ...row, started_at: started_at ?? created_at, model: model_id }))
  }
}
