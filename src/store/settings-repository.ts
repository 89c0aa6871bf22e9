import type { Kysely } from 'kysely'
import type { Database } from './database.js'

/** Installation-wide values that every manager sharing the database must agree on. */
export class SettingsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async get(key: string): Promise<string | undefined> {
    return (await this.db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst())?.value
  }

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

  /**
   * Store `value`, returning what it replaced ({ previous: null } when none), or null when it was already
   * stored: of managers racing to store the same change, exactly one is told it made it.
   */
  async change(key: string, value: string): Promise<{ previous: string | null } | null> {
    for (;;) {
      const row = await this.db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst()
      if (row?.value === value) return null
      if (!row) {
        const inserted = await this.db
          .insertInto('settings')
          .values({ key, value })
          .onConflict((oc) => oc.column('key').doNothing())
          .executeTakeFirst()
        if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1) return { previous: null }
        continue
      }
      const updated = await this.db.updateTable('settings').set({ value }).where('key', '=', key).where('value', '=', row.value).executeTakeFirst()
      if (Number(updated.numUpdatedRows) === 1) return { previous: row.value }
    }
  }
}
