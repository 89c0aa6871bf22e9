import { PostgresAdapter, sql, type Kysely } from 'kysely'

/** The catalog's tables, each with the columns that name one of its rows. */
export const CATALOG_TABLES = { skills: ['key'], agents: ['id'], bindings: ['agent_id', 'skill_key'] } as const

/**
 * Each catalog row (skills, agents, bindings) carries the change_versions version of the write that
 * last touched it, and each deleted row leaves a tombstone with the version of its delete, so a
 * manager reads only the rows written since the version it last saw, never the whole catalog.
 *
 * Why a version is safe as a cursor on PostgreSQL, where writers run concurrently: the version is
 * taken by updating the table's change_versions row, whose lock the writer then holds until it
 * commits. So versions commit in the order they are handed out; once a reader sees version V
 * committed, every row stamped at or below V is committed too, and no lower stamp can commit later.
 * A reader reads the version and the rows in one snapshot (see CatalogChangeRepository).
 */
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter
  for (const table of Object.keys(CATALOG_TABLES)) {
    await db.schema
      .alterTable(table)
      .addColumn('change_seq', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute()
    await db.schema.createIndex(`${table}_change_seq_idx`).on(table).column('change_seq').execute()
  }
  // A binding's tombstone names its agent in id and its skill in skill_key; other rows leave skill_key empty.
  await db.schema
    .createTable('catalog_deletions')
    .addColumn('table_name', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('skill_key', 'text', (c) => c.notNull())
    .addColumn('change_seq', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('catalog_deletions_pk', ['table_name', 'id', 'skill_key'])
    .execute()
  await db.schema.createIndex('catalog_deletions_change_seq_idx').on('catalog_deletions').columns(['table_name', 'change_seq']).execute()

  if (postgres) {
    // Once per row now (0017 bumped once per statement): each row needs the version of its own write.
    await sql`create function skillplane_stamp_change() returns trigger language plpgsql as $$
      begin
        update change_versions set version = version + 1 where name = TG_TABLE_NAME returning version into NEW.change_seq;
        return NEW;
      end $$`.execute(db)
    await sql`create function skillplane_tombstone() returns trigger language plpgsql as $$
      declare
        seq bigint;
        old_row jsonb := to_jsonb(OLD);
      begin
        update change_versions set version = version + 1 where name = TG_TABLE_NAME returning version into seq;
        insert into catalog_deletions (table_name, id, skill_key, change_seq)
          values (TG_TABLE_NAME, old_row ->> TG_ARGV[0], coalesce(old_row ->> TG_ARGV[1], ''), seq)
          on conflict (table_name, id, skill_key) do update set change_seq = excluded.change_seq;
        return null;
      end $$`.execute(db)
    for (const [table, columns] of Object.entries(CATALOG_TABLES)) {
      await sql`drop trigger ${sql.id(`${table}_bump_version`)} on ${sql.id(table)}`.execute(db)
      await sql`create trigger ${sql.id(`${table}_stamp_change`)} before insert or update on ${sql.id(table)}
        for each row execute function skillplane_stamp_change()`.execute(db)
      await sql`create trigger ${sql.id(`${table}_tombstone`)} after delete on ${sql.id(table)}
        for each row execute function skillplane_tombstone(${sql.join(columns.map((c) => sql.lit(c)))})`.execute(db)
    }
    return
  }

  // SQLite has one writer at a time: a version handed out is committed before the next one is.
  for (const [table, columns] of Object.entries(CATALOG_TABLES)) {
    const bump = sql`update change_versions set version = version + 1 where name = ${sql.lit(table)}`
    const version = sql`(select version from change_versions where name = ${sql.lit(table)})`
    const sameRow = sql.join(
      columns.map((c) => sql`${sql.id(c)} = new.${sql.id(c)}`),
      sql` and `,
    )
    const id = sql`old.${sql.id(columns[0])}`
    const skillKey = columns.length > 1 ? sql`old.${sql.id(columns[1]!)}` : sql`''`
    for (const event of ['insert', 'update', 'delete']) await sql`drop trigger ${sql.id(`${table}_bump_version_${event}`)}`.execute(db)
    await sql`create trigger ${sql.id(`${table}_stamp_insert`)} after insert on ${sql.id(table)}
      begin ${bump}; update ${sql.id(table)} set change_seq = ${version} where ${sameRow}; end`.execute(db)
    // The stamp itself is an update: the when clause keeps it from stamping again.
    await sql`create trigger ${sql.id(`${table}_stamp_update`)} after update on ${sql.id(table)} when new.change_seq = old.change_seq
      begin ${bump}; update ${sql.id(table)} set change_seq = ${version} where ${sameRow}; end`.execute(db)
    await sql`create trigger ${sql.id(`${table}_tombstone`)} after delete on ${sql.id(table)}
      begin ${bump}; insert or replace into catalog_deletions (table_name, id, skill_key, change_seq) values (${sql.lit(table)}, ${id}, ${skillKey}, ${version}); end`.execute(
      db,
    )
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter
  for (const table of Object.keys(CATALOG_TABLES)) {
    if (postgres) {
      await sql`drop trigger ${sql.id(`${table}_stamp_change`)} on ${sql.id(table)}`.execute(db)
      await sql`drop trigger ${sql.id(`${table}_tombstone`)} on ${sql.id(table)}`.execute(db)
      await sql`create trigger ${sql.id(`${table}_bump_version`)} after insert or update or delete on ${sql.id(table)} for each statement execute function skillplane_bump_version()`.execute(
        db,
      )
    } else {
      for (const trigger of ['stamp_insert', 'stamp_update', 'tombstone']) await sql`drop trigger ${sql.id(`${table}_${trigger}`)}`.execute(db)
      for (const event of ['insert', 'update', 'delete']) {
        await sql`create trigger ${sql.id(`${table}_bump_version_${event}`)} after ${sql.raw(event)} on ${sql.id(table)}
          begin update change_versions set version = version + 1 where name = ${sql.lit(table)}; end`.execute(db)
      }
    }
    await db.schema.dropIndex(`${table}_change_seq_idx`).execute()
    await db.schema.alterTable(table).dropColumn('change_seq').execute()
  }
  if (postgres) {
    await sql`drop function skillplane_tombstone()`.execute(db)
    await sql`drop function skillplane_stamp_change()`.execute(db)
  }
  await db.schema.dropTable('catalog_deletions').execute()
}
