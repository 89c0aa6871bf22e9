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

  /** Register a new SOP or a new revision under the same id (never a revoked revision: see Sops). */
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

  /** Revoke the registered revision of this SOP; its content hash stays revoked for good. */
  revoke(id: string, now: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx
        .updateTable('sops')
        .set({ revoked_at: now })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .returning('hash')
        .executeTakeFirst()
      if (!row) return false
      await trx
        .insertInto('sop_revocations')
        .values({ hash: row.hash, sop_id: id, revoked_at: now })
        .onConflict((oc) => oc.column('hash').doNothing())
        .execute()
      return true
    })
  }

  /** When this content hash was revoked, if ever. */
  async revokedAt(hash: string): Promise<string | undefined> {
    return (await this.db.selectFrom('sop_revocations').select('revoked_at').where('hash', '=', hash).executeTakeFirst())?.revoked_at
  }
}
