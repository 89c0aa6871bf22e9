import type { Kysely } from 'kysely'

/**
 * What discovery learns and keeps: requests that led to a call of a skill (usage examples),
 * relations learned from one skill following another, and skill text embeddings.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('discovery_examples')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('skill_key', 'text', (c) => c.notNull())
    .addColumn('query', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('discovery_examples_created_idx').on('discovery_examples').column('created_at').execute()
  await db.schema
    .createTable('skill_relations')
    .addColumn('from_key', 'text', (c) => c.notNull())
    .addColumn('to_key', 'text', (c) => c.notNull())
    .addColumn('weight', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('skill_relations_pk', ['from_key', 'to_key'])
    .execute()
  await db.schema
    .createTable('skill_embeddings')
    .addColumn('skill_key', 'text', (c) => c.notNull())
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('text_hash', 'text', (c) => c.notNull())
    .addColumn('vector', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('skill_embeddings_pk', ['skill_key', 'model'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('skill_embeddings').execute()
  await db.schema.dropTable('skill_relations').execute()
  await db.schema.dropTable('discovery_examples').execute()
}
