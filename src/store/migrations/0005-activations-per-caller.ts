import { sql, type Kysely } from 'kysely'

// Activations become per caller (conversation ids are the client's choice): the primary key
// changes, which both dialects only allow by rebuilding the table.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('skill_activations').renameTo('skill_activations_old').execute()
  await db.schema
    .createTable('skill_activations')
    .addColumn('conversation_id', 'text', (c) => c.notNull())
    .addColumn('skill_name', 'text', (c) => c.notNull())
    .addColumn('caller_id', 'text', (c) => c.notNull())
    .addColumn('call_id', 'text', (c) => c.notNull())
    .addColumn('activated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('skill_activations_caller_pk', ['conversation_id', 'caller_id', 'skill_name'])
    .execute()
  await sql`insert into skill_activations (conversation_id, skill_name, caller_id, call_id, activated_at)
    select conversation_id, skill_name, caller_id, call_id, activated_at from skill_activations_old`.execute(db)
  await db.schema.dropTable('skill_activations_old').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('skill_activations').execute()
}
