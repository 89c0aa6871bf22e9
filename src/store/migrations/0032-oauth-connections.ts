import type { Kysely } from 'kysely'

/**
 * OAuth 2 connections: one row per provider and person ('' for the service account) with its tokens
 * sealed; the flows started and not yet called back (taken once); and the client registrations
 * skillplane made itself (RFC 7591), sealed too.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('oauth_connections')
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('sealed', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('version', 'integer', (c) => c.notNull())
    // Set while one manager refreshes the tokens: the others wait for its answer instead of racing it.
    .addColumn('refreshing_until', 'text')
    .addColumn('connected_at', 'text', (c) => c.notNull())
    .addColumn('connected_by', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('oauth_connections_pk', ['provider', 'subject'])
    .execute()
  await db.schema.createIndex('oauth_connections_subject_idx').on('oauth_connections').column('subject').execute()
  await db.schema
    .createTable('oauth_states')
    .addColumn('state_hash', 'text', (c) => c.primaryKey())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('checks', 'text', (c) => c.notNull())
    .addColumn('return_to', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('oauth_states_expires_idx').on('oauth_states').column('expires_at').execute()
  await db.schema
    .createTable('oauth_clients')
    .addColumn('provider', 'text', (c) => c.primaryKey())
    .addColumn('sealed', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('oauth_clients').execute()
  await db.schema.dropTable('oauth_states').execute()
  await db.schema.dropTable('oauth_connections').execute()
}
