import type { Compilable, Kysely, Selectable } from 'kysely'
import type SQLite from 'better-sqlite3'
import type { ApprovalDecisionsTable, ApprovalsTable, Database } from './database.js'
import type { GrantRow } from './grant-repository.js'

export type ApprovalRow = Selectable<ApprovalsTable>
export type DecisionRow = Selectable<ApprovalDecisionsTable>

export class ApprovalRepository {
  constructor(
    private readonly db: Kysely<Database>,
    /** SQLite's connection, for decisions taken synchronously (see decide). */
    private readonly sqlite?: SQLite.Database,
  ) {}

  async insert(row: ApprovalRow): Promise<void> {
    await this.db.insertInto('approvals').values(row).execute()
  }

  get(id: string): Promise<ApprovalRow | undefined> {
    return this.db.selectFrom('approvals').selectAll().where('id', '=', id).executeTakeFirst()
  }

  list(q: { status?: string; decided?: boolean; skill?: string; agent?: string; requester?: string; cursor?: string; limit: number }): Promise<ApprovalRow[]> {
    let query = this.db.selectFrom('approvals').selectAll()
    if (q.requester) query = query.where('caller_id', '=', q.requester)
    if (q.status) query = query.where('status', '=', q.status)
    if (q.decided !== undefined) query = query.where('status', q.decided ? '!=' : '=', 'pending')
    if (q.skill) query = query.where('skill_key', '=', q.skill)
    if (q.agent) query = query.where('agent_id', '=', q.agent)
    if (q.cursor) query = query.where('id', '<', q.cursor)
    return query
      .orderBy('id', 'desc')
      .limit(q.limit + 1)
      .execute()
  }

  /** A conversation's requests in the order they were made (its own index), `limit` at most. */
  ofConversation(conversationId: string, limit: number): Promise<ApprovalRow[]> {
    return this.db
      .selectFrom('approvals')
      .selectAll()
      .where('conversation_id', '=', conversationId)
      .orderBy('created_at', 'asc')
      .orderBy('id', 'asc')
      .limit(limit)
      .execute()
  }

  /** Move a request from one status to another; false when it was no longer in `from` (a race lost). */
  async transition(id: string, from: string, to: string, changes: Partial<ApprovalRow> = {}): Promise<boolean> {
    const result = await this.db
      .updateTable('approvals')
      .set({ ...changes, status: to })
      .where('id', '=', id)
      .where('status', '=', from)
      .executeTakeFirst()
    return Number(result.numUpdatedRows) === 1
  }

  /** The newest pending or approved (unused) request for exactly this call, if one is still open. */
  findOpen(q: {
    skill: string
    inputHash: string
    callerId: string
    agentId: string | null
    conversationId: string | null
    now: string
  }): Promise<ApprovalRow | undefined> {
    let query = this.db
      .selectFrom('approvals')
      .selectAll()
      .where('skill_key', '=', q.skill)
      .where('input_hash', '=', q.inputHash)
      .where('caller_id', '=', q.callerId)
      .where('status', 'in', ['pending', 'approved'])
      .where('expires_at', '>', q.now)
    query = q.agentId === null ? query.where('agent_id', 'is', null) : query.where('agent_id', '=', q.agentId)
    query = q.conversationId === null ? query.where('conversation_id', 'is', null) : query.where('conversation_id', '=', q.conversationId)
    return query.orderBy('id', 'desc').limit(1).executeTakeFirst()
  }

  /** Requests still waiting for decisions. */
  async countPending(now: string): Promise<number> {
    const row = await this.db
      .selectFrom('approvals')
      .select((eb) => eb.fn.countAll<string | number>().as('count'))
      .where('status', '=', 'pending')
      .where('expires_at', '>', now)
      .executeTakeFirstOrThrow()
    return Number(row.count)
  }

  /** Pending or approved-but-unused requests past their expiry. */
  dueForExpiry(now: string): Promise<ApprovalRow[]> {
    return this.db.selectFrom('approvals').selectAll().where('status', 'in', ['pending', 'approved']).where('expires_at', '<=', now).execute()
  }

  decisions(approvalId: string): Promise<DecisionRow[]> {
    return this.db.selectFrom('approval_decisions').selectAll().where('approval_id', '=', approvalId).orderBy('id').execute()
  }

  /**
   * Record a decision and the status it leads to as one atomic step, valid only if the request is
   * still pending with exactly `seen` decisions (what the decider judged). The first statement
   * writes the request row, which takes PostgreSQL's row lock and SQLite's write lock before
   * anything is read, so concurrent deciders queue instead of interleaving.
   */
  async decide(row: DecisionRow, seen: number, next: string, decidedAt: string, grant?: GrantRow): Promise<DecideOutcome> {
    const steps = (db: Kysely<Database>) => ({
      lock: db.updateTable('approvals').set({ status: 'pending' }).where('id', '=', row.approval_id).where('status', '=', 'pending'),
      count: db
        .selectFrom('approval_decisions')
        .select((eb) => eb.fn.countAll<string | number>().as('count'))
        .where('approval_id', '=', row.approval_id),
      insert: db
        .insertInto('approval_decisions')
        .values(row)
        .onConflict((oc) => oc.columns(['approval_id', 'approver_id']).doNothing()),
      settle: db.updateTable('approvals').set({ status: next, decided_at: decidedAt }).where('id', '=', row.approval_id),
      // The conversation grant an approval carries commits with it.
      grant: grant && db.insertInto('approval_grants').values(grant),
    })
    const sqlite = this.sqlite
    if (sqlite && !sqlite.inTransaction) {
      // On SQLite the whole step runs synchronously (BEGIN IMMEDIATE … COMMIT with no await between),
      // so another connection of this process never waits on a lock this thread holds.
      const q = steps(this.db)
      const run = (query: Compilable) => {
        const { sql, parameters } = query.compile()
        return sqlite.prepare(sql).run(...parameters)
      }
      const get = (query: Compilable) => {
        const { sql, parameters } = query.compile()
        return sqlite.prepare(sql).get(...parameters) as Record<string, unknown>
      }
      return sqlite
        .transaction((): DecideOutcome => {
          if (run(q.lock).changes !== 1) return 'not_pending'
          if (Number(get(q.count).count) !== seen) return 'changed'
          if (run(q.insert).changes !== 1) return 'duplicate'
          if (next !== 'pending') run(q.settle)
          if (q.grant) run(q.grant)
          return 'recorded'
        })
        .immediate()
    }
    return this.db.transaction().execute(async (trx) => {
      const q = steps(trx)
      if (Number((await q.lock.executeTakeFirst()).numUpdatedRows) !== 1) return 'not_pending'
      if (Number((await q.count.executeTakeFirstOrThrow()).count) !== seen) return 'changed'
      if (Number((await q.insert.executeTakeFirst()).numInsertedOrUpdatedRows ?? 0n) !== 1) return 'duplicate'
      if (next !== 'pending') await q.settle.execute()
      if (q.grant) await q.grant.execute()
      return 'recorded'
    })
  }
}

/** recorded, or why not: decided meanwhile, other decisions arrived first, or this approver already decided. */
export type DecideOutcome = 'recorded' | 'not_pending' | 'changed' | 'duplicate'
