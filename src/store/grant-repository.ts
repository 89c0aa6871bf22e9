import type { Kysely, Selectable } from 'kysely'
import type { ApprovalGrantsTable, Database } from './database.js'

export type GrantRow = Selectable<ApprovalGrantsTable>

export type GrantState = 'active' | 'expired' | 'revoked'

export class GrantRepository {
  constructor(private readonly db: Kysely<Database>) {}

  get(id: string): Promise<GrantRow | undefined> {
    return this.db.selectFrom('approval_grants').selectAll().where('id', '=', id).executeTakeFirst()
  }

  /** Unrevoked, unexpired grants for exactly this caller, skill, agent, conversation, person and edge, newest first. */
  live(q: {
    skill: string
    conversationId: string
    callerId: string
    agentId: string | null
    onBehalfOfId: string | null
    edgeId: string | null
    now: string
  }): Promise<GrantRow[]> {
    let query = this.db
      .selectFrom('approval_grants')
      .selectAll()
      .where('skill_key', '=', q.skill)
      .where('conversation_id', '=', q.conversationId)
      .where('caller_id', '=', q.callerId)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', q.now)
    query = q.agentId === null ? query.where('agent_id', 'is', null) : query.where('agent_id', '=', q.agentId)
    query = q.onBehalfOfId === null ? query.where('on_behalf_of_id', 'is', null) : query.where('on_behalf_of_id', '=', q.onBehalfOfId)
    query = q.edgeId === null ? query.where('edge_id', 'is', null) : query.where('edge_id', '=', q.edgeId)
    return query.orderBy('id', 'desc').execute()
  }

  /** Newest first, one more than `limit` (the caller pages with it). */
  list(q: { state?: GrantState; skill?: string; agent?: string; conversationId?: string; cursor?: string; limit: number; now: string }): Promise<GrantRow[]> {
    let query = this.db.selectFrom('approval_grants').selectAll()
    if (q.state === 'active') query = query.where('revoked_at', 'is', null).where('expires_at', '>', q.now)
    if (q.state === 'expired') query = query.where('revoked_at', 'is', null).where('expires_at', '<=', q.now)
    if (q.state === 'revoked') query = query.where('revoked_at', 'is not', null)
    if (q.skill) query = query.where('skill_key', '=', q.skill)
    if (q.agent) query = query.where('agent_id', '=', q.agent)
    if (q.conversationId) query = query.where('conversation_id', '=', q.conversationId)
    if (q.cursor) query = query.where('id', '<', q.cursor)
    return query
      .orderBy('id', 'desc')
      .limit(q.limit + 1)
      .execute()
  }

  /** Revoke a grant not revoked yet; false when it already was (or is gone). */
  async revoke(id: string, by: { id: string; name: string }, now: string): Promise<boolean> {
    const result = await this.db
      .updateTable('approval_grants')
      .set({ revoked_at: now, revoked_by_id: by.id, revoked_by_name: by.name })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst()
    return Number(result.numUpdatedRows) === 1
  }
}
