import type { Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('skill_activations')
    .addColumn('conversation_id', 'text', (c) => c.notNull())
    .addColumn('skill_name', 'text', (c) => c.notNull())
    .addColumn('caller_id', 'text', (c) => c.notNull())
    .addColumn('call_id', 'text', (c) => c.notNull())
    .addColumn('activated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('skill_activations_pk', ['conversation_id', 'skill_name'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('skill_activations').execute()
}
