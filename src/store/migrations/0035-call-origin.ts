import type { Kysely } from 'kysely'

/**
 * A call tree's links that are not `parent_call_id`: `origin_call_id`, the call another skillplane
 * says made this one (over MCP; shown in trees, never trusted for anything else), indexed for the
 * walk down a tree; and `spans`, what happened inside a call that is no audit row of its own
 * (an approval wait, an edge relay through another manager, a call on a remote skillplane), as JSON.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('audit_calls').addColumn('origin_call_id', 'text').execute()
  await db.schema.alterTable('audit_calls').addColumn('spans', 'text').execute()
  await db.schema
    .createIndex('audit_calls_origin_call_id_idx')
    .on('audit_calls')
    .columns(['origin_call_id', 'call_id'])
    .where('origin_call_id', 'is not', null)
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('audit_calls_origin_call_id_idx').execute()
  await db.schema.alterTable('audit_calls').dropColumn('spans').execute()
  await db.schema.alterTable('audit_calls').dropColumn('origin_call_id').execute()
}
