import type { Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('audit_calls').addColumn('trace_id', 'text').execute()
  await db.schema.createIndex('audit_calls_trace_id').on('audit_calls').column('trace_id').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('audit_calls_trace_id').execute()
  await db.schema.alterTable('audit_calls').dropColumn('trace_id').execute()
}
