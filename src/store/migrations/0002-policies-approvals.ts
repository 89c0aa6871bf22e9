import type { Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('policies')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('skill_key', 'text', (c) => c.notNull())
    .addColumn('level', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('decision', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('policies_target_unique', ['skill_key', 'level', 'subject'])
    .execute()

  await db.schema
    .createTable('approvals')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('skill_key', 'text', (c) => c.notNull())
    .addColumn('class', 'text', (c) => c.notNull())
    .addColumn('input', 'text', (c) => c.notNull())
    .addColumn('input_hash', 'text', (c) => c.notNull())
    .addColumn('caller_id', 'text', (c) => c.notNull())
    .addColumn('caller_name', 'text', (c) => c.notNull())
    .addColumn('caller_kind', 'text', (c) => c.notNull())
    .addColumn('agent_id', 'text')
    .addColumn('conversation_id', 'text')
    .addColumn('call_id', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('approvals_required', 'integer', (c) => c.notNull())
    .addColumn('approver_role', 'text', (c) => c.notNull())
    .addColumn('sop_required', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('decided_at', 'text')
    .addColumn('executed_call_id', 'text')
    .addColumn('seal', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('approvals_status_idx').on('approvals').columns(['status', 'id']).execute()

  await db.schema
    .createTable('approval_decisions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('approval_id', 'text', (c) => c.notNull())
    .addColumn('approver_id', 'text', (c) => c.notNull())
    .addColumn('approver_name', 'text', (c) => c.notNull())
    .addColumn('approver_role', 'text', (c) => c.notNull())
    .addColumn('decision', 'text', (c) => c.notNull())
    .addColumn('comment', 'text')
    .addColumn('sop_id', 'text')
    .addColumn('sop_hash', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('seal', 'text', (c) => c.notNull())
    // One decision per approver per request: the same person can't be counted twice.
    .addUniqueConstraint('approval_decisions_once', ['approval_id', 'approver_id'])
    .execute()

  await db.schema
    .createTable('sops')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('skills', 'text', (c) => c.notNull())
    .addColumn('document', 'text', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .addColumn('signature', 'text', (c) => c.notNull())
    .addColumn('key_name', 'text', (c) => c.notNull())
    .addColumn('registered_by', 'text', (c) => c.notNull())
    .addColumn('registered_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute()

  await db.schema
    .createTable('audit_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text', (c) => c.notNull())
    .addColumn('actor_name', 'text', (c) => c.notNull())
    .addColumn('call_id', 'text')
    .addColumn('details', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('audit_events_subject_idx').on('audit_events').columns(['subject', 'id']).execute()

  await db.schema.alterTable('audit_calls').addColumn('approval_id', 'text').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('audit_calls').dropColumn('approval_id').execute()
  for (const table of ['audit_events', 'sops', 'approval_decisions', 'approvals', 'policies']) {
    await db.schema.dropTable(table).execute()
  }
}
