import { PostgresAdapter, type Kysely } from 'kysely'
import type { Database } from './database.js'

/** The versions of the watched tables (skills, agents, bindings, policies), one small read. */
export class ChangeVersionRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async read(): Promise<Map<string, number>> {
    const rows = await this.db.selectFrom('change_versions').select(['name', 'version']).execute()
    return new Map(rows.map((row) => [row.name, Number(row.version)]))
  }

  /**
   * In a transaction that writes several watched tables (a sync): take their version rows first,
   * in name order. Their triggers lock those rows as each table is written, so two such
   * transactions writing the tables in different orders would otherwise deadlock on PostgreSQL.
   * SQLite has one writer at a time and needs nothing.
   */
  async lockAll(): Promise<void> {
    if (!(this.db.getExecutor().adapter instanceof PostgresAdapter)) return
    await this.db.selectFrom('change_versions').select('name').orderBy('name').forUpdate().execute()
  }
}
