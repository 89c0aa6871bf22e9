import { sql, type Kysely } from 'kysely'

/** Revoked SOP revisions by content hash: a revocation outlives the row a newer revision replaces. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('sop_revocations')
    .addColumn('hash', 'text', (c) => c.primaryKey())
    .addColumn('sop_id', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text', (c) => c.notNull())
    .execute()
  await sql`insert into sop_revocations (hash, sop_id, revoked_at) select hash, id, revoked_at from sops where revoked_at is not null`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('sop_revocations').execute()
}
