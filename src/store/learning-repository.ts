import type { Kysely, Selectable } from 'kysely'
import type { Database, LearningsTable } from './database.js'

export type LearningRow = Selectable<LearningsTable>

export interface LearningQuery {
  status?: string
  category?: string
  agentId?: string
  skill?: string
  limit: number
}

/** Learnings, and the conversations that were given them. */
export class LearningRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: LearningRow): Promise<void> {
    await this.db.insertInto('learnings').values(row).execute()
  }

  get(id: string): Promise<LearningRow | undefined> {
    return this.db.selectFrom('learnings').selectAll().where('id', '=', id).executeTakeFirst()
  }

  /** Newest first. */
  list(q: LearningQuery): Promise<LearningRow[]> {
    let query = this.db.selectFrom('learnings').selectAll()
    if (q.status) query = query.where('status', '=', q.status)
    if (q.category) query = query.where('category', '=', q.category)
    if (q.agentId) query = query.where('agent_id', '=', q.agentId)
    if (q.skill) query = query.where('skill_key', '=', q.skill)
    return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(q.limit).execute()
  }

  /**
   * Active learnings nobody disproved, highest stored importance first. For one agent's prompt:
   * its own, and of those no agent made, the ones recorded by the program itself (outside any call)
   * or verified by an admin: a call by anyone, a viewer too, may have made the others.
   */
  usable(limit: number, agentId?: string): Promise<LearningRow[]> {
    let query = this.db
      .selectFrom('learnings')
      .selectAll()
      .where('status', '=', 'active')
      .where((eb) => eb.or([eb('verification', 'is', null), eb('verification', '!=', 'disproved')]))
    if (agentId !== undefined)
      query = query.where((eb) =>
        eb.or([eb('agent_id', '=', agentId), eb.and([eb('agent_id', 'is', null), eb.or([eb('call_id', 'is', null), eb('verification', '=', 'verified')])])]),
      )
    return query.orderBy('importance', 'desc').orderBy('id').limit(limit).execute()
  }

  /** What ranking usable learnings needs, without their text (`usable` with no agent, lighter). */
  usableMeta(limit: number): Promise<Array<Pick<LearningRow, 'id' | 'category' | 'importance' | 'importance_at'>>> {
    return this.db
      .selectFrom('learnings')
      .select(['id', 'category', 'importance', 'importance_at'])
      .where('status', '=', 'active')
      .where((eb) => eb.or([eb('verification', 'is', null), eb('verification', '!=', 'disproved')]))
      .orderBy('importance', 'desc')
      .orderBy('id')
      .limit(limit)
      .execute()
  }

  /** Learnings by id (their text never changes once recorded). */
  async byIds(ids: readonly string[]): Promise<LearningRow[]> {
    const rows: LearningRow[] = []
    // In slices: both databases cap the parameters of one statement.
    for (let i = 0; i < ids.length; i += 500)
      rows.push(
        ...(await this.db
          .selectFrom('learnings')
          .selectAll()
          .where('id', 'in', ids.slice(i, i + 500))
          .execute()),
      )
    return rows
  }

  /** Every active learning's decay inputs, for the daily sweep. */
  active(): Promise<Array<Pick<LearningRow, 'id' | 'importance' | 'importance_at' | 'created_at'>>> {
    return this.db.selectFrom('learnings').select(['id', 'importance', 'importance_at', 'created_at']).where('status', '=', 'active').execute()
  }

  /**
   * Replace a learning's importance, only if it still holds the one read (another manager may
   * have changed it since): false means read it again.
   */
  async update(
    id: string,
    read: Pick<LearningRow, 'importance' | 'importance_at'>,
    next: Partial<Pick<LearningRow, 'importance' | 'importance_at' | 'status' | 'verification'>> & { updated_at: string },
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('learnings')
      .set(next)
      .where('id', '=', id)
      .where('importance', '=', read.importance)
      .where('importance_at', '=', read.importance_at)
      .executeTakeFirst()
    return Number(result.numUpdatedRows) === 1
  }

  async addUses(conversationId: string, ids: string[], now: string): Promise<void> {
    if (ids.length === 0) return
    await this.db
      .insertInto('learning_uses')
      .values(ids.map((learning_id) => ({ conversation_id: conversationId, learning_id, used_at: now })))
      .onConflict((oc) => oc.columns(['conversation_id', 'learning_id']).doNothing())
      .execute()
  }

  /** The learnings a conversation used, forgetting them: whoever takes them reinforces each once. */
  async takeUses(conversationId: string): Promise<string[]> {
    const rows = await this.db.deleteFrom('learning_uses').where('conversation_id', '=', conversationId).returning('learning_id').execute()
    return rows.map((r) => r.learning_id)
  }

  async deleteUsesBefore(before: string): Promise<void> {
    await this.db.deleteFrom('learning_uses').where('used_at', '<', before).execute()
  }
}
