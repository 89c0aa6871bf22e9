import { PostgresAdapter, type Kysely } from 'kysely'

/**
 * Streamable HTTP sessions of /mcp and the server-sent events of their streams, so a client that
 * reconnects with Last-Event-ID gets what it missed, on a restarted manager or another one sharing
 * the database. A session row holds what re-creates its MCP server (its key, role, conversation and
 * the client's initialize parameters, its logging level, the manager serving it); times are milliseconds
 * since the epoch, compared with the idle timeout. Event messages are sealed with the secrets key, bound to their session.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter
  await db.schema
    .createTable('mcp_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('conversation_id', 'text', (c) => c.notNull())
    .addColumn('initialize', 'text', (c) => c.notNull())
    // The level the client set with logging/setLevel; null until it sets one.
    .addColumn('log_level', 'text')
    // The manager serving it: another re-opens it only once that manager is gone.
    .addColumn('holder', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('mcp_sessions_last_used_idx').on('mcp_sessions').column('last_used').execute()
  // The event id is this key: increasing, so a stream's events replay in the order they were stored.
  await db.schema
    .createTable('mcp_events')
    .addColumn('id', postgres ? 'bigserial' : 'integer', (c) => (postgres ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn('session_id', 'text', (c) => c.notNull())
    .addColumn('stream_id', 'text', (c) => c.notNull())
    // Null for a stream's priming event, which carries no message.
    .addColumn('message', 'text')
    // The sealed message's length: a session's events are capped in bytes too.
    .addColumn('bytes', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('mcp_events_session_idx').on('mcp_events').columns(['session_id', 'stream_id', 'id']).execute()
  await db.schema.createIndex('mcp_events_created_idx').on('mcp_events').column('created_at').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('mcp_events').execute()
  await db.schema.dropTable('mcp_sessions').execute()
}
