import type { Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('settings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('audit_calls_approval_id_idx').on('audit_calls').column('approval_id').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('audit_calls_approval_id_idx').execute()
  await db.schema.dropTable('settings').execute()
}
