import { sql, type Kysely, type Selectable } from 'kysely'
import type { Database, MemoryEntriesTable } from './database.js'
import type { Dialect } from './open-database.js'

export type MemoryEntryRow = Selectable<MemoryEntriesTable>
export type MemoryKeyRow = Omit<MemoryEntryRow, 'value'>

/** Shared memory's entries. Every read takes `now`: an entry past its expiry is as good as gone. */
export class MemoryRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  get(pool: string, key: string, now: string): Promise<MemoryEntryRow | undefined> {
    return this.db
      .selectFrom('memory_entries')
      .selectAll()
      .where('pool', '=', pool)
      .where('key', '=', key)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
      .executeTakeFirst()
  }

  /** Live keys starting with `prefix` (compared by characters, case-sensitive on both dialects), in key order. */
  list(pool: string, prefix: string, now: string, limit: number): Promise<MemoryKeyRow[]> {
    let query = this.db
      .selectFrom('memory_entries')
      .select(['pool', 'key', 'bytes', 'expires_at', 'updated_at', 'updated_by'])
      .where('pool', '=', pool)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    // Both databases count characters (code points), not UTF-16 units.
    if (prefix !== '') query = query.where(sql<string>`substr(key, 1, ${[...prefix].length})`, '=', prefix)
    return query.orderBy('key').limit(limit).execute()
  }

  /**
   * Store an entry unless that would put more than `maxEntries` live entries in its pool, or start
   * a pool past `maxPools`: one pool at a time, and one new pool at a time (PostgreSQL advisory
   * locks, the pool's first; SQLite writes one transaction at a time), so two managers can't pass a
   * cap together. Returns what stopped it, or 'stored'.
   */
  put(row: MemoryEntryRow, caps: { maxEntries: number; maxPools: number }, now: string): Promise<'stored' | 'pool_full' | 'too_many_pools'> {
    return this.db.transaction().execute(async (trx) => {
      if (this.dialect === 'postgres') await sql`select pg_advisory_xact_lock(hashtext(${`skillplane_memory:${row.pool}`}))`.execute(trx)
      await trx.deleteFrom('memory_entries').where('pool', '=', row.pool).where('expires_at', '<=', now).execute()
      const existing = await trx.selectFrom('memory_entries').select('key').where('pool', '=', row.pool).where('key', '=', row.key).executeTakeFirst()
      if (!existing) {
        const { count } = await trx
          .selectFrom('memory_entries')
          .select((eb) => eb.fn.countAll<number>().as('count'))
          .where('pool', '=', row.pool)
          .executeTakeFirstOrThrow()
        if (Number(count) >= caps.maxEntries) return 'pool_full'
        if (Number(count) === 0) {
          if (this.dialect === 'postgres') await sql`select pg_advisory_xact_lock(hashtext('skillplane_memory_pools'))`.execute(trx)
          const pools = await trx
            .selectFrom('memory_entries')
            .select((eb) => eb.fn.count<number>('pool').distinct().as('count'))
            .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
            .executeTakeFirstOrThrow()
          if (Number(pools.count) >= caps.maxPools) return 'too_many_pools'
        }
      }
      await trx
        .insertInto('memory_entries')
        .values(row)
        .onConflict((oc) =>
          oc
            .columns(['pool', 'key'])
            .doUpdateSet({ value: row.value, bytes: row.bytes, expires_at: row.expires_at, updated_at: row.updated_at, updated_by: row.updated_by }),
        )
        .execute()
      return 'stored'
    })
  }

  /** Remove an entry; true when a live one was there. */
  async delete(pool: string, key: string, now: string): Promise<boolean> {
    const row = await this.db.deleteFrom('memory_entries').where('pool', '=', pool).where('key', '=', key).returning('expires_at').executeTakeFirst()
    return row !== undefined && (row.expires_at === null || row.expires_at > now)
  }

  /** Delete every expired entry; returns how many. */
  async sweep(now: string): Promise<number> {
    const result = await this.db.deleteFrom('memory_entries').where('expires_at', '<=', now).executeTakeFirst()
    return Number(result.numDeletedRows)
  }
}
