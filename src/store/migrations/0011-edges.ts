import type { Kysely } from 'kysely'

/**
 * Edges (enrolled hosts, their connection and offered skills), the calls relayed between managers
 * for an edge another manager holds, and the edge on audit rows and approval requests.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('edges')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('labels', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .addColumn('hostname', 'text')
    .addColumn('os', 'text')
    .addColumn('arch', 'text')
    .addColumn('version', 'text')
    .addColumn('skills', 'text', (c) => c.notNull())
    .addColumn('manager_id', 'text')
    .addColumn('connected_at', 'text')
    .addColumn('last_seen_at', 'text')
    .execute()
  await db.schema
    .createTable('edge_calls')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('edge_id', 'text', (c) => c.notNull())
    .addColumn('holder_id', 'text', (c) => c.notNull())
    .addColumn('caller_manager_id', 'text', (c) => c.notNull())
    .addColumn('skill_key', 'text', (c) => c.notNull())
    .addColumn('input', 'text', (c) => c.notNull())
    .addColumn('timeout_ms', 'integer', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('result', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('edge_calls_holder_idx').on('edge_calls').columns(['holder_id', 'state']).execute()
  await db.schema.alterTable('audit_calls').addColumn('edge_name', 'text').execute()
  await db.schema.createIndex('audit_calls_edge_idx').on('audit_calls').columns(['edge_id', 'call_id']).execute()
  await db.schema.alterTable('approvals').addColumn('edge_id', 'text').execute()
  await db.schema.alterTable('approvals').addColumn('edge_name', 'text').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('approvals').dropColumn('edge_name').execute()
  await db.schema.alterTable('approvals').dropColumn('edge_id').execute()
  await db.schema.dropIndex('audit_calls_edge_idx').execute()
  await db.schema.alterTable('audit_calls').dropColumn('edge_name').execute()
  await db.schema.dropTable('edge_calls').execute()
  await db.schema.dropTable('edges').execute()
}
