import type { Kysely } from 'kysely'

/**
 * Conversation grants: an approver let one caller's calls of a skill, for one agent in one
 * conversation, run without a new request until the grant expires or is revoked. Audit rows name
 * the grant that let a call run.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('approval_grants')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // One grant per approval: the decision that made it.
    .addColumn('approval_id', 'text', (c) => c.notNull().unique())
    .addColumn('skill_key', 'text', (c) => c.notNull())
    .addColumn('agent_id', 'text')
    .addColumn('conversation_id', 'text', (c) => c.notNull())
    .addColumn('caller_id', 'text', (c) => c.notNull())
    .addColumn('caller_name', 'text', (c) => c.notNull())
    .addColumn('on_behalf_of_id', 'text')
    .addColumn('on_behalf_of_name', 'text')
    .addColumn('edge_id', 'text')
    .addColumn('edge_name', 'text')
    .addColumn('granted_by_id', 'text', (c) => c.notNull())
    .addColumn('granted_by_name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .addColumn('revoked_by_id', 'text')
    .addColumn('revoked_by_name', 'text')
    .addColumn('seal', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('approval_grants_lookup_idx').on('approval_grants').columns(['skill_key', 'conversation_id']).execute()
  await db.schema.alterTable('audit_calls').addColumn('grant_id', 'text').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('audit_calls').dropColumn('grant_id').execute()
  await db.schema.dropTable('approval_grants').execute()
}
