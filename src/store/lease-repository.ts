import type { Kysely } from 'kysely'
import type { Database } from './database.js'

/** Periodic jobs that exactly one manager sharing the database should do. */
export class LeaseRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Take the job `name` for `holder` when it is due (never taken, or its `due_at` passed), making it
   * due again at `until`. One statement: of managers racing for it, exactly one gets true (the
   * others' upsert finds the winner's row, not yet due).
   */
  async claim(name: string, holder: string, now: string, until: string): Promise<boolean> {
    const row = await this.db
      .insertInto('leases')
      .values({ name, holder, taken_at: now, due_at: until })
      .onConflict((oc) => oc.column('name').doUpdateSet({ holder, taken_at: now, due_at: until }).where('leases.due_at', '<=', now))
      .returning('holder')
      .executeTakeFirst()
    return row !== undefined
  }
}
