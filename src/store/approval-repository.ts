import type { Kysely, Selectable } from 'kysely'
import type { ApprovalDecisionsTable, ApprovalsTable, Database } from './database.js'

export type ApprovalRow = Selectable<ApprovalsTable>
export type DecisionRow = Selectable<ApprovalDecisionsTable>

export class ApprovalRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: ApprovalRow): Promise<void> {
    await this.db.insertInto('approvals').values(row).execute()
  }

  get(id: string): Promise<ApprovalRow | undefined> {
    return this.db.selectFrom('approvals').selectAll().where('id', '=', id).executeTakeFirst()
  }

  list(q: { status?: string; skill?: string; agent?: string; requester?: string; cursor?: string; limit: number }): Promise<ApprovalRow[]> {
    let query = this.db.selectFrom('approvals').selectAll()
    if (q.requester) query = query.where('caller_id', '=', q.requester)
    if (q.status) query = query.where('status', '=', q.status)
    if (q.skill) query = query.where('skill_key', '=', q.skill)
    if (q.agent) query = query.where('agent_id', '=', q.agent)
    if (q.cursor) query = query.where('id', '<', q.cursor)
    return query.orderBy('id', 'desc').limit(q.limit + 1).execute()
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
  findOpen(q: { skill: string; inputHash: string; callerId: string; agentId: string | null; conversationId: string | null; now: string }): Promise<ApprovalRow | undefined> {
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

  /** Pending or approved-but-unused requests past their expiry. */
  dueForExpiry(now: string): Promise<ApprovalRow[]> {
    return this.db.selectFrom('approvals').selectAll().where('status', 'in', ['pending', 'approved']).where('expires_at', '<=', now).execute()
  }

  decisions(approvalId: string): Promise<DecisionRow[]> {
    return this.db.selectFrom('approval_decisions').selectAll().where('approval_id', '=', approvalId).orderBy('id').execute()
  }

  /** False when this approver already decided (the unique constraint is the arbiter under races). */
  async insertDecision(row: DecisionRow): Promise<boolean> {
    const result = await this.db
      .insertInto('approval_decisions')
      .values(row)
      .onConflict((oc) => oc.columns(['approval_id', 'approver_id']).doNothing())
      .executeTakeFirst()
    return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1
  }
}
