import type { Kysely } from 'kysely'

/**
 * Which manager learned each request: a manager re-reads the last minute of other managers'
 * requests (late commits, clock skew) but never its own, which at a busy manager's learning rate
 * would be tens of thousands of rows a heartbeat. Older rows have none and are read as before.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('discovery_examples').addColumn('manager_id', 'text').execute()
  // The last minute's rows are told apart in the index, without a read of each row.
  await db.schema.dropIndex('discovery_examples_created_idx').execute()
  await db.schema.createIndex('discovery_examples_created_manager_idx').on('discovery_examples').columns(['created_at', 'manager_id']).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('discovery_examples_created_manager_idx').execute()
  await db.schema.createIndex('discovery_examples_created_idx').on('discovery_examples').column('created_at').execute()
  await db.schema.alterTable('discovery_examples').dropColumn('manager_id').execute()
}
