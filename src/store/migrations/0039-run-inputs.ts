import type { Kysely } from 'kysely'

/**
 * What an agent run's tool call asks a person for (an imported MCP server's elicitation), while the
 * call waits: stored so any manager sharing the database can take the answer, and decided once
 * (one answer wins). The manager holding the call reads the answer from here.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('run_inputs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('run_id', 'text', (c) => c.notNull())
    .addColumn('tool_call_id', 'text')
    .addColumn('tool_name', 'text')
    .addColumn('step_idx', 'integer')
    .addColumn('manager_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('requested_schema', 'text')
    .addColumn('url', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('content', 'text')
    .addColumn('answered_by_id', 'text')
    .addColumn('answered_by_name', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('decided_at', 'text')
    .execute()
  await db.schema.createIndex('run_inputs_run').on('run_inputs').columns(['run_id', 'created_at']).execute()
  await db.schema.createIndex('run_inputs_pending').on('run_inputs').columns(['status', 'manager_id']).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('run_inputs').execute()
}
