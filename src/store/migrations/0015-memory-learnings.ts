import type { Kysely } from 'kysely'

/**
 * Shared memory (JSON values in named pools, with an optional expiry), learnings (notes skills
 * leave for later calls, whose importance decays), the runs that used a learning, and leases (one
 * manager does a periodic job).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('memory_entries')
    .addColumn('pool', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('bytes', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('updated_by', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('memory_entries_pk', ['pool', 'key'])
    .execute()
  await db.schema.createIndex('memory_entries_expires_at_idx').on('memory_entries').column('expires_at').execute()
  await db.schema
    .createTable('learnings')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('tags', 'text', (c) => c.notNull())
    // The importance as of importance_at; what it is now follows from the decay.
    .addColumn('importance', 'double precision', (c) => c.notNull())
    .addColumn('importance_at', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('verification', 'text')
    .addColumn('skill_key', 'text')
    .addColumn('agent_id', 'text')
    .addColumn('call_id', 'text')
    .addColumn('caller_id', 'text', (c) => c.notNull())
    .addColumn('caller_name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('learnings_status_idx').on('learnings').columns(['status', 'agent_id']).execute()
  await db.schema
    .createTable('learning_uses')
    .addColumn('conversation_id', 'text', (c) => c.notNull())
    .addColumn('learning_id', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('learning_uses_pk', ['conversation_id', 'learning_id'])
    .execute()
  await db.schema
    .createTable('leases')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('taken_at', 'text', (c) => c.notNull())
    // Until then the job is done: no other manager may take it.
    .addColumn('due_at', 'text', (c) => c.notNull())
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('leases').execute()
  await db.schema.dropTable('learning_uses').execute()
  await db.schema.dropTable('learnings').execute()
  await db.schema.dropTable('memory_entries').execute()
}
