import type { Kysely } from 'kysely'
import type { Database } from './database.js'

/** Installation-wide values that every manager sharing the database must agree on. */
export class SettingsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** The stored value, storing `value` first when none exists (the first manager decides). */
  async getOrInit(key: string, value: string): Promise<string> {
    await this.db
      .insertInto('settings')
      .values({ key, value })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute()
    const row = await this.db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirstOrThrow()
    return row.value
  }
}
