import { PostgresAdapter, sql, type Kysely } from 'kysely'

/** Tables whose every write bumps their row in change_versions: what the heartbeat reloads from. */
export const WATCHED_TABLES = ['skills', 'agents', 'bindings', 'policies'] as const

/**
 * A version per watched table, bumped by triggers in the writing transaction (so it commits with
 * the change, whoever wrote it), so the heartbeat reads one small table and reloads only what
 * moved; and indexes for the audit filters that had none (caller and edge by name).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('change_versions')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('version', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute()
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter
  if (postgres) {
    await sql`create function skillplane_bump_version() returns trigger language plpgsql as $$
      begin update change_versions set version = version + 1 where name = TG_TABLE_NAME; return null; end $$`.execute(db)
  }
  for (const table of WATCHED_TABLES) {
    await db.insertInto('change_versions').values({ name: table, version: 0 }).execute()
    const trigger = sql.id(`${table}_bump_version`)
    if (postgres) {
      // Once per statement: a sync of 10,000 skills bumps the version once, not 10,000 times.
      await sql`create trigger ${trigger} after insert or update or delete on ${sql.id(table)} for each statement execute function skillplane_bump_version()`.execute(
        db,
      )
    } else {
      for (const event of ['insert', 'update', 'delete']) {
        await sql`create trigger ${sql.id(`${table}_bump_version_${event}`)} after ${sql.raw(event)} on ${sql.id(table)}
          begin update change_versions set version = version + 1 where name = ${sql.lit(table)}; end`.execute(db)
      }
    }
  }
  // The caller filter matches caller_id or caller_name; caller_id is indexed since 0001.
  await db.schema.createIndex('audit_calls_caller_name_idx').on('audit_calls').columns(['caller_name', 'call_id']).execute()
  // Edge names are empty for local calls: a partial index holds only edge calls.
  await db.schema.createIndex('audit_calls_edge_name_idx').on('audit_calls').columns(['edge_name', 'call_id']).where('edge_name', 'is not', null).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('audit_calls_edge_name_idx').execute()
  await db.schema.dropIndex('audit_calls_caller_name_idx').execute()
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter
  for (const table of WATCHED_TABLES) {
    if (postgres) await sql`drop trigger ${sql.id(`${table}_bump_version`)} on ${sql.id(table)}`.execute(db)
    else for (const event of ['insert', 'update', 'delete']) await sql`drop trigger ${sql.id(`${table}_bump_version_${event}`)}`.execute(db)
  }
  if (postgres) await sql`drop function skillplane_bump_version()`.execute(db)
  await db.schema.dropTable('change_versions').execute()
}
