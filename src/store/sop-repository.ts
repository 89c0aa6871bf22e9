import type { Kysely, Selectable } from 'kysely'
import type { Database, SopsTable } from './database.js'

export type SopRow = Selectable<SopsTable>

export class SopRepository {
  constructor(private readonly db: Kysely<Database>) {}

  get(id: string): Promise<SopRow | undefined> {
    return this.db.selectFrom('sops').selectAll().where('id', '=', id).executeTakeFirst()
  }

  list(): Promise<SopRow[]> {
    return this.db.selectFrom('sops').selectAll().orderBy('id').execute()
  }

  /** Register a new SOP or a new revision under the same id (un-revoking it). */
  async upsert(row: SopRow): Promise<void> {
    await this.db
      .insertInto('sops')
      .values(row)
      .onConflict((oc) =>
        oc.column('id').doUpdateSet({
          title: row.title,
          skills: row.skills,
          document: row.document,
          hash: row.hash,
          signature: row.signature,
          key_name: row.key_name,
          registered_by: row.registered_by,
          registered_at: row.registered_at,
          revoked_at: null,
        }),
      )
      .execute()
  }

  async revoke(id: string, now: string): Promise<boolean> {
    const result = await this.db.updateTable('sops').set({ revoked_at: now }).where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst()
    return Number(result.numUpdatedRows) === 1
  }
}
