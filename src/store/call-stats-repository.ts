import { PostgresAdapter, sql, type Kysely } from 'kysely'
import type SQLite from 'better-sqlite3'
import { KEY_COLUMNS, MAX_MS, STATS_COLUMNS, type Grain, type StatsColumn, type StatsDim, type StatsEntry } from './call-stats.js'
import type { Database } from './database.js'

/** A range of buckets of one grain: [from, to) on the bucket prefix. */
export interface StatsTile {
  grain: Grain
  from: string
  to: string
}

/** The summed counters of one value over some tiles, or of one bucket. */
export type StatsTotals = Record<StatsColumn, number>

const ALL = [...KEY_COLUMNS, ...STATS_COLUMNS]
// Rows per INSERT: 102 values a row stays under SQLite's and PostgreSQL's bound-parameter limits.
const CHUNK = 200
const isPostgres = (db: Kysely<Database>) => db.getExecutor().adapter instanceof PostgresAdapter

function setList(postgres: boolean): string {
  return STATS_COLUMNS.map((c, i) =>
    i === MAX_MS ? `${c} = ${postgres ? 'greatest' : 'max'}(call_stats.${c}, excluded.${c})` : `${c} = call_stats.${c} + excluded.${c}`,
  ).join(', ')
}

const keyOf = (e: StatsEntry) => `${e.dim}\u0000${e.grain}\u0000${e.bucket}\u0000${e.value}`

const toRow = (e: StatsEntry) => {
  const row: Record<string, string | number> = { dim: e.dim, value: e.value, grain: e.grain, bucket: e.bucket }
  STATS_COLUMNS.forEach((c, i) => (row[c] = e.values[i]!))
  return row
}

/** Add deltas to the rollup through Kysely (PostgreSQL, and the migration's backfill on either dialect). */
export async function upsertStats(db: Kysely<Database>, entries: StatsEntry[]): Promise<void> {
  const set = sql.raw(setList(isPostgres(db)))
  // In key order, so two managers flushing the same keys lock them in the same order and never deadlock.
  entries = [...entries].sort((a, b) => keyOf(a).localeCompare(keyOf(b)))
  for (let i = 0; i < entries.length; i += CHUNK) {
    const rows = entries.slice(i, i + CHUNK).map(toRow)
    // Kysely can't express `col = call_stats.col + excluded.col` for a hundred columns tersely: the statement is written out.
    const placeholders = rows.map((row) => sql`(${sql.join(ALL.map((c) => row[c]))})`)
    await sql`insert into call_stats (${sql.raw(ALL.join(', '))}) values ${sql.join(placeholders)} on conflict (dim, grain, bucket, value) do update set ${set}`.execute(
      db,
    )
  }
}

/** The same upsert as a prepared SQLite statement, run per entry inside the caller's transaction. */
export function sqliteStatsWriter(sqlite: SQLite.Database): (entries: StatsEntry[]) => void {
  const statement = sqlite.prepare(
    `insert into call_stats (${ALL.join(', ')}) values (${ALL.map(() => '?').join(', ')}) on conflict (dim, grain, bucket, value) do update set ${setList(false)}`,
  )
  return (entries) => {
    for (const e of entries) statement.run(e.dim, e.value, e.grain, e.bucket, ...e.values)
  }
}

const sums = STATS_COLUMNS.map((c, i) => (i === MAX_MS ? `max(${c}) as ${c}` : `sum(${c}) as ${c}`)).join(', ')

function totals(row: Record<string, unknown>): StatsTotals {
  const out = {} as StatsTotals
  // PostgreSQL's sums are numerics and bigints, which pg hands over as strings.
  for (const c of STATS_COLUMNS) out[c] = Number(row[c] ?? 0)
  return out
}

export class CallStatsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Each value's counters summed over the tiles: one range of the primary key (dim, grain, bucket,
   * value) per tile, so a window reads its few buckets of every value and nothing else.
   */
  async totals(dim: StatsDim, tiles: StatsTile[], value?: string): Promise<Array<{ value: string } & StatsTotals>> {
    if (tiles.length === 0) return []
    const ranges = tiles.map(
      (t) =>
        sql`select * from call_stats where dim = ${dim} and grain = ${t.grain} and bucket >= ${t.from} and bucket < ${t.to}${value === undefined ? sql`` : sql` and value = ${value}`}`,
    )
    const result = await sql<
      Record<string, unknown>
    >`select value, ${sql.raw(sums)} from (${sql.join(ranges, sql` union all `)}) as tiles group by value`.execute(this.db)
    return result.rows.map((row) => ({ value: String(row.value), ...totals(row) }))
  }

  /** One value's buckets of one grain in [from, to), oldest first: the (dim, value, grain, bucket) index. */
  async series(dim: StatsDim, value: string, tile: StatsTile): Promise<Array<{ bucket: string } & StatsTotals>> {
    const rows = await this.db
      .selectFrom('call_stats')
      .selectAll()
      .where('dim', '=', dim)
      .where('value', '=', value)
      .where('grain', '=', tile.grain)
      .where('bucket', '>=', tile.from)
      .where('bucket', '<', tile.to)
      .orderBy('bucket')
      .execute()
    return rows.map((row) => ({ bucket: row.bucket, ...totals(row as unknown as Record<string, unknown>) }))
  }

  /** Requests waiting for a decision now, per value of a dimension (a small set: read live). */
  async pending(dim: StatsDim, now: string, value?: string): Promise<Map<string, number>> {
    const column = { all: null, skill: 'skill_key', agent: 'agent_id', edge: 'edge_name', caller: 'caller_id' } as const
    const c = column[dim]
    let query = this.db
      .selectFrom('approvals')
      .select((eb) => [c === null ? sql<string>`''`.as('value') : eb.ref(c).as('value'), eb.fn.countAll<number | string>().as('n')])
      .where('status', '=', 'pending')
      .where('expires_at', '>', now)
    if (c !== null) query = query.where(c, 'is not', null)
    if (c !== null && value !== undefined) query = query.where(c, '=', value)
    const rows = await (c === null ? query : query.groupBy(c)).execute()
    return new Map(rows.map((r) => [String(r.value), Number(r.n)]))
  }

  /** Delete buckets of a grain older than a bucket prefix; how many went. */
  async prune(grain: Grain, before: string): Promise<number> {
    const result = await this.db.deleteFrom('call_stats').where('grain', '=', grain).where('bucket', '<', before).executeTakeFirst()
    return Number(result.numDeletedRows)
  }
}
