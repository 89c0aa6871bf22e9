import type { Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('agent_runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('agent_id', 'text', (c) => c.notNull())
    .addColumn('requester_id', 'text', (c) => c.notNull())
    .addColumn('requester_name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('prompt', 'text', (c) => c.notNull())
    .addColumn('output', 'text')
    .addColumn('error', 'text')
    .addColumn('trace_id', 'text')
    .addColumn('messages', 'text', (c) => c.notNull())
    .addColumn('pending', 'text')
    .addColumn('test', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('overrides', 'text')
    .addColumn('manager_id', 'text')
    .addColumn('model_steps', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .execute()
  await db.schema.createIndex('agent_runs_agent').on('agent_runs').columns(['agent_id', 'id']).execute()
  await db.schema.createIndex('agent_runs_status').on('agent_runs').column('status').execute()
  await db.schema
    .createTable('agent_run_steps')
    .addColumn('run_id', 'text', (c) => c.notNull())
    .addColumn('idx', 'integer', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('text', 'text')
    .addColumn('tool_name', 'text')
    .addColumn('tool_call_id', 'text')
    .addColumn('input', 'text')
    .addColumn('output', 'text')
    .addColumn('error', 'text')
    .addColumn('status', 'text')
    .addColumn('call_id', 'text')
    .addColumn('approval_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('agent_run_steps_pk', ['run_id', 'idx'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('agent_run_steps').execute()
  await db.schema.dropTable('agent_runs').execute()
}
