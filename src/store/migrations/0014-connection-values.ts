import type { Kysely } from 'kysely'

/**
 * Values skills are connected with: secrets (API tokens, passwords) and settings (an organisation
 * name, a region), each global or for one agent or one user, encrypted at rest.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('connection_values')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    // '' for global values, else the agent id or the user name.
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('sealed', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('updated_by', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('connection_values_pk', ['kind', 'name', 'scope', 'subject'])
    .execute()
  // A call relayed to the manager holding its edge carries its secrets sealed, never in the clear.
  await db.schema.alterTable('edge_calls').addColumn('secrets', 'text').execute()
  // The secret names an admin lets each edge receive: an edge's own announcement can't ask for more.
  await db.schema
    .alterTable('edges')
    .addColumn('secrets', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('edges').dropColumn('secrets').execute()
  await db.schema.alterTable('edge_calls').dropColumn('secrets').execute()
  await db.schema.dropTable('connection_values').execute()
}
