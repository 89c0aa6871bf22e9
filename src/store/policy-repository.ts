import type { Kysely, Selectable } from 'kysely'
import type { Database, PoliciesTable } from './database.js'

export type PolicyRow = Selectable<PoliciesTable>

export class PolicyRepository {
  constructor(private readonly db: Kysely<Database>) {}

  list(): Promise<PolicyRow[]> {
    return this.db.selectFrom('policies').selectAll().orderBy('skill_key').orderBy('level').orderBy('subject').execute()
  }

  /** Insert or replace the override for (skill, level, subject). */
  async upsert(row: PolicyRow): Promise<void> {
    await this.db
      .insertInto('policies')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['skill_key', 'level', 'subject']).doUpdateSet({ decision: row.decision, created_by: row.created_by, created_at: row.created_at }),
      )
      .execute()
  }

  async delete(id: string): Promise<PolicyRow | undefined> {
    const row = await this.db.selectFrom('policies').selectAll().where('id', '=', id).executeTakeFirst()
    if (row) await this.db.deleteFrom('policies').where('id', '=', id).execute()
    return row
  }

  find(skill: string, level: string, subject: string): Promise<PolicyRow | undefined> {
    return this.db
      .selectFrom('policies')
      .selectAll()
      .where('skill_key', '=', skill)
      .where('level', '=', level)
      .where('subject', '=', subject)
      .executeTakeFirst()
  }
}
