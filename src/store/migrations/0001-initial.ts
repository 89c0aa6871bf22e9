import type { Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('skills')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('class', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('code_title', 'text', (c) => c.notNull())
    .addColumn('code_description', 'text', (c) => c.notNull())
    .addColumn('code_tags', 'text', (c) => c.notNull())
    .addColumn('title_override', 'text')
    .addColumn('description_override', 'text')
    .addColumn('system_prompt', 'text')
    .addColumn('tags_override', 'text')
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('present', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('agents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('aliases', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('declared', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('bindings')
    .addColumn('agent_id', 'text', (c) => c.notNull())
    .addColumn('skill_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('bindings_pk', ['agent_id', 'skill_key'])
    .execute()

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('agent_id', 'text')
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute()

  await db.schema
    .createTable('audit_calls')
    .addColumn('call_id', 'text', (c) => c.primaryKey())
    .addColumn('parent_call_id', 'text')
    .addColumn('skill_key', 'text', (c) => c.notNull())
    .addColumn('caller_id', 'text', (c) => c.notNull())
    .addColumn('caller_name', 'text', (c) => c.notNull())
    .addColumn('caller_kind', 'text', (c) => c.notNull())
    .addColumn('caller_role', 'text', (c) => c.notNull())
    .addColumn('agent_id', 'text')
    .addColumn('conversation_id', 'text')
    .addColumn('edge_id', 'text')
    .addColumn('manager_id', 'text', (c) => c.notNull())
    .addColumn('input', 'text', (c) => c.notNull())
    .addColumn('result', 'text')
    .addColumn('result_truncated', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('error_code', 'text')
    .addColumn('error_message', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .addColumn('duration_ms', 'double precision')
    .execute()
  for (const column of ['skill_key', 'status', 'agent_id', 'caller_id', 'parent_call_id']) {
    await db.schema.createIndex(`audit_calls_${column}_idx`).on('audit_calls').columns([column, 'call_id']).execute()
  }
  await db.schema.createIndex('audit_calls_started_at_idx').on('audit_calls').column('started_at').execute()

  await db.schema
    .createTable('managers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('hostname', 'text', (c) => c.notNull())
    .addColumn('pid', 'integer', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('heartbeat_at', 'text', (c) => c.notNull())
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['managers', 'audit_calls', 'api_keys', 'bindings', 'agents', 'skills']) {
    await db.schema.dropTable(table).execute()
  }
}
