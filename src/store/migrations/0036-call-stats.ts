import { sql, type Kysely } from 'kysely'
import { decodeTime, encodeTime } from 'ulid'
import { DURATION_BOUNDS, STATS_COLUMNS, STATS_KEPT_DAYS, StatsDeltas, type StatsEntry } from '../call-stats.js'
import { upsertStats } from '../call-stats-repository.js'

/**
 * The health views' rollup: counters per dimension value and minute, hour and day bucket, kept as
 * audit rows become final (AuditRepository) and approvals stop waiting (Approvals). Its key
 * (dim, grain, bucket, value) serves a window of every value; the second index one value's series.
 * Existing rows and settled approvals are counted here once.
 */
export async function up(db: Kysely<any>): Promise<void> {
  let table = db.schema
    .createTable('call_stats')
    .addColumn('dim', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('grain', 'text', (c) => c.notNull())
    .addColumn('bucket', 'text', (c) => c.notNull())
  // Durations are milliseconds, not always whole; counts are whole.
  for (const column of STATS_COLUMNS) table = table.addColumn(column, column.endsWith('_ms') ? 'double precision' : 'bigint', (c) => c.notNull().defaultTo(0))
  await table.addPrimaryKeyConstraint('call_stats_pk', ['dim', 'grain', 'bucket', 'value']).execute()
  await db.schema.createIndex('call_stats_value_idx').on('call_stats').columns(['dim', 'value', 'grain', 'bucket']).execute()
  await backfill(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('call_stats').execute()
}

const DAY_MS = 86_400_000

/** The bounds of a day of calls by id (ULIDs begin with their time), so each day is a range of the primary key. */
function dayRanges(first: string | null, last: string | null): Array<[string | null, string | null]> {
  const bound = (ms: number) => `${encodeTime(ms, 10)}${'0'.repeat(16)}`
  let from: number
  let to: number
  try {
    from = Math.floor(decodeTime(`${first!.slice(0, 10)}${'0'.repeat(16)}`) / DAY_MS) * DAY_MS
    to = decodeTime(`${last!.slice(0, 10)}${'0'.repeat(16)}`)
  } catch {
    // No rows, or ids that are no ULIDs: one range of everything.
    return [[null, null]]
  }
  const ranges: Array<[string | null, string | null]> = [[null, bound(from)]]
  for (let day = from; day <= to; day += DAY_MS) ranges.push([bound(day), bound(day + DAY_MS)])
  ranges.push([bound(Math.floor(to / DAY_MS) * DAY_MS + DAY_MS), null])
  return ranges
}

async function backfill(db: Kysely<any>): Promise<void> {
  // Minute and hour buckets older than they are kept would be pruned at the first sweep: not written.
  const now = Date.now()
  const kept = (e: StatsEntry) =>
    e.grain === 'd' || e.bucket >= new Date(now - STATS_KEPT_DAYS[e.grain] * DAY_MS).toISOString().slice(0, e.grain === 'm' ? 16 : 13)
  // A day of the audit at a time, grouped by everything a stats key or counter needs, so memory
  // holds one day's groups however long the history; the duration's bucket is a CASE over the
  // same bounds the live path uses, so both agree to the bucket.
  const bin = sql.raw(
    `case when duration_ms is null then -1 ${DURATION_BOUNDS.map((b, i) => `when duration_ms < ${b} then ${i}`).join(' ')} else ${DURATION_BOUNDS.length} end`,
  )
  const ends = await db
    .selectFrom('audit_calls')
    .select((eb) => [eb.fn.min('call_id').as('first'), eb.fn.max('call_id').as('last')])
    .executeTakeFirst()
  for (const [from, to] of dayRanges(ends?.first ?? null, ends?.last ?? null)) {
    const range = sql.join(
      [sql`status <> 'running'`, ...(from === null ? [] : [sql`call_id >= ${from}`]), ...(to === null ? [] : [sql`call_id < ${to}`])],
      sql` and `,
    )
    const groups = sql<Record<string, unknown>>`select skill_key, caller_id, agent_id, edge_name, substr(started_at, 1, 16) as minute, status, ${bin} as bin,
      count(*) as n, count(duration_ms) as timed, coalesce(sum(duration_ms), 0) as sum_ms, coalesce(max(duration_ms), 0) as max_ms
      from audit_calls where ${range}
      group by skill_key, caller_id, agent_id, edge_name, substr(started_at, 1, 16), status, ${bin}`
    const deltas = new StatsDeltas()
    for (const g of (await groups.execute(db)).rows) {
      deltas.rows(
        {
          status: String(g.status),
          started_at: String(g.minute),
          skill_key: String(g.skill_key),
          caller_id: String(g.caller_id),
          agent_id: g.agent_id === null ? null : String(g.agent_id),
          edge_name: g.edge_name === null ? null : String(g.edge_name),
        },
        { n: Number(g.n), timed: Number(g.timed), sumMs: Number(g.sum_ms), maxMs: Number(g.max_ms), bin: Number(g.bin) },
      )
    }
    await upsertStats(db, deltas.entries().filter(kept))
  }
  const deltas = new StatsDeltas()
  // Settled approvals: a decision ends the wait; an expired request waited until its expiry.
  const approvals = await db
    .selectFrom('approvals')
    .select(['skill_key', 'caller_id', 'agent_id', 'edge_name', 'status', 'created_at', 'decided_at', 'expires_at'])
    .where('status', 'in', ['approved', 'rejected', 'executed', 'expired'])
    .execute()
  for (const a of approvals) {
    const endedAt: string = a.status === 'expired' || a.decided_at === null ? a.expires_at : a.decided_at
    const seconds = (Date.parse(endedAt) - Date.parse(a.created_at)) / 1000
    if (Number.isNaN(seconds)) continue
    deltas.wait({ skill_key: a.skill_key, caller_id: a.caller_id, agent_id: a.agent_id, edge_name: a.edge_name, endedAt, seconds })
  }
  await upsertStats(db, deltas.entries().filter(kept))
}
