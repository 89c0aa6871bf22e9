import type { Kysely, Selectable } from 'kysely'
import type { Database, SkillActivationsTable } from './database.js'

export type ActivationRow = Selectable<SkillActivationsTable>

/** Which instruction skills each conversation has activated: it survives restarts. */
export class ActivationRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Record an activation; false when the conversation had already activated this skill. */
  async activate(row: ActivationRow): Promise<boolean> {
    const result = await this.db
      .insertInto('skill_activations')
      .values(row)
      .onConflict((oc) => oc.columns(['conversation_id', 'caller_id', 'skill_name']).doNothing())
      .executeTakeFirst()
    return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1
  }
}
