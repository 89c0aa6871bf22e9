import type { Kysely } from 'kysely'
import type { Database } from './database.js'

/** The versions of the watched tables (skills, agents, bindings, policies), one small read. */
export class ChangeVersionRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async read(): Promise<Map<string, number>> {
    const rows = await this.db.selectFrom('change_versions').select(['name', 'version']).execute()
    return new Map(rows.map((row) => [row.name, Number(row.version)]))
  }
}
