import { z } from 'zod'
import {
  DURATION_BOUNDS,
  DURATION_COLUMNS,
  GRAINS,
  GRAINS_OF,
  percentile,
  WAIT_BOUNDS,
  WAIT_COLUMNS,
  type AuditRepository,
  type CallStatsRepository,
  type Grain,
  type StatsDim,
  type StatsTile,
  type StatsTotals,
} from '../store/index.js'

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR
const UNIT: Record<Grain, number> = { d: DAY, h: HOUR, m: MINUTE }

/**
 * The windows the health views offer: whole buckets ending with the current one (a window reads one
 * row per bucket and value: at most 60, 6, 24, 7 or 30), and the grain of its chart.
 */
export const STATS_WINDOWS = {
  '1h': { ms: HOUR, edge: 'm', chart: 'm' },
  '6h': { ms: 6 * HOUR, edge: 'h', chart: 'm' },
  '24h': { ms: DAY, edge: 'h', chart: 'h' },
  '7d': { ms: 7 * DAY, edge: 'd', chart: 'h' },
  '30d': { ms: 30 * DAY, edge: 'd', chart: 'd' },
} as const satisfies Record<string, { ms: number; edge: Grain; chart: Grain }>
export type StatsWindow = keyof typeof STATS_WINDOWS

export const STATS_SORTS = ['calls', 'errorRate', 'refusalRate', 'p50', 'p95', 'p99', 'approvalsPending', 'waitMedian'] as const
export type StatsSort = (typeof STATS_SORTS)[number]
/** The dimensions a table or series is asked for ('all' is the whole plane, read by the series of everything). */
export const STATS_TABLE_DIMS = ['skill', 'agent', 'edge', 'caller'] as const

export interface StatsRow {
  value: string
  calls: number
  ok: number
  failed: number
  refused: number
  /** failed / calls, null without calls. */
  errorRate: number | null
  refusalRate: number | null
  p50Ms: number | null
  p95Ms: number | null
  p99Ms: number | null
  /** Requests waiting for a decision now (not limited to the window). */
  approvalsPending: number
  /** Requests that stopped waiting (decided or expired) in the window, and their median wait. */
  approvalWaits: number
  waitMedianS: number | null
}

export interface StatsPoint {
  /** The bucket's start (ISO). */
  bucket: string
  calls: number
  failed: number
  refused: number
  p50Ms: number | null
  p95Ms: number | null
  p99Ms: number | null
  approvalWaits: number
  waitMedianS: number | null
}

const iso = (ms: number) => new Date(ms).toISOString()

/**
 * [from, to) as few buckets as possible: whole days in the middle, whole hours beside them, minutes
 * at the edges. A 30-day window reads at most 29 day and 46 hour buckets per value; a day, 23 hours and 118 minutes.
 */
export function tileWindow(from: number, to: number, grains: Grain[] = ['d', 'h', 'm']): StatsTile[] {
  const [grain, ...finer] = grains
  if (grain === undefined || from >= to) return []
  const unit = UNIT[grain]
  const a = Math.ceil(from / unit) * unit
  const b = Math.floor(to / unit) * unit
  if (a >= b) return tileWindow(from, to, finer)
  const length = GRAINS[grain]
  return [{ grain, from: iso(a).slice(0, length), to: iso(b).slice(0, length) }, ...tileWindow(from, a, finer), ...tileWindow(b, to, finer)]
}

// A grain a dimension keeps (callers and edges have no minutes; GRAINS_OF lists the finest first): the finest one at least as coarse as asked.
const keptGrain = (dim: StatsDim, grain: Grain): Grain => (GRAINS_OF[dim].includes(grain) ? grain : GRAINS_OF[dim][0]!)

/** A window of whole buckets ending with the current one, and its tiles. */
export function planWindow(window: StatsWindow, now: number, dim: StatsDim = 'skill'): { from: string; to: string; tiles: StatsTile[] } {
  const { ms, edge } = STATS_WINDOWS[window]
  const unit = UNIT[keptGrain(dim, edge)]
  const to = Math.floor(now / unit) * unit + unit
  const from = to - Math.max(ms, unit)
  return { from: iso(from), to: iso(to), tiles: tileWindow(from, to, [...GRAINS_OF[dim]].reverse()) }
}

const durations = (t: StatsTotals) => DURATION_COLUMNS.map((c) => t[c])
const waits = (t: StatsTotals) => WAIT_COLUMNS.map((c) => t[c])
const round = (n: number | null, digits: number) => (n === null ? null : Math.round(n * 10 ** digits) / 10 ** digits)

function measures(t: StatsTotals | undefined) {
  if (!t) return { calls: 0, ok: 0, failed: 0, refused: 0, p50Ms: null, p95Ms: null, p99Ms: null, approvalWaits: 0, waitMedianS: null }
  const d = durations(t)
  const p = (q: number) => round(percentile(d, q, DURATION_BOUNDS, t.max_ms), 1)
  return {
    calls: t.calls,
    ok: t.ok,
    failed: t.failed,
    refused: t.refused,
    p50Ms: p(0.5),
    p95Ms: p(0.95),
    p99Ms: p(0.99),
    approvalWaits: t.waits,
    waitMedianS: round(percentile(waits(t), 0.5, WAIT_BOUNDS), 1),
  }
}

const SORT_KEY: Record<StatsSort, (r: StatsRow) => number | null> = {
  calls: (r) => r.calls,
  errorRate: (r) => r.errorRate,
  refusalRate: (r) => r.refusalRate,
  p50: (r) => r.p50Ms,
  p95: (r) => r.p95Ms,
  p99: (r) => r.p99Ms,
  approvalsPending: (r) => r.approvalsPending,
  waitMedian: (r) => r.waitMedianS,
}

export interface StatsTableQuery {
  dim: StatsDim
  window: StatsWindow
  sort: StatsSort
  order: 'asc' | 'desc'
  limit: number
}

/** The health views' reads: a table of every value of a dimension over a window, and one value's chart. */
export interface HealthReader {
  table(q: StatsTableQuery): Promise<{ dim: StatsDim; window: StatsWindow; from: string; to: string; items: StatsRow[] }>
  series(q: { dim: StatsDim; value: string; window: StatsWindow }): Promise<{ dim: StatsDim; value: string; window: StatsWindow; points: StatsPoint[] }>
  /** Requests waiting for a decision now, per value of a dimension. */
  pending(dim: StatsDim): Promise<Map<string, number>>
}

export function healthReader(audit: AuditRepository, stats: CallStatsRepository, now: () => number): HealthReader {
  return {
    pending: (dim) => stats.pending(dim, iso(now())),
    async table(q) {
      // This manager's counts not yet written go first, so a call just made shows.
      await audit.flushStats().catch(() => {}) // A failed flush keeps its counts for the next: a second stale beats a failed page.
      const at = now()
      const plan = planWindow(q.window, at, q.dim)
      const [totals, pending] = await Promise.all([stats.totals(q.dim, plan.tiles), stats.pending(q.dim, iso(at))])
      const byValue = new Map(totals.map((t) => [t.value, t]))
      const values = new Set([...byValue.keys(), ...pending.keys()])
      const items: StatsRow[] = [...values].map((value) => {
        const m = measures(byValue.get(value))
        return {
          value,
          ...m,
          errorRate: m.calls > 0 ? m.failed / m.calls : null,
          refusalRate: m.calls > 0 ? m.refused / m.calls : null,
          approvalsPending: pending.get(value) ?? 0,
        }
      })
      const key = SORT_KEY[q.sort]
      const sign = q.order === 'asc' ? 1 : -1
      // Rows without a figure go last either way; ties by calls, then by name.
      items.sort((a, b) => {
        const x = key(a)
        const y = key(b)
        if (x !== y) {
          if (x === null) return 1
          if (y === null) return -1
          return sign * (x - y)
        }
        return b.calls - a.calls || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0)
      })
      return { dim: q.dim, window: q.window, from: plan.from, to: plan.to, items: items.slice(0, q.limit) }
    },

    async series(q) {
      await audit.flushStats().catch(() => {}) // A failed flush keeps its counts for the next: a second stale beats a failed page.
      const plan = planWindow(q.window, now(), q.dim)
      const grain = keptGrain(q.dim, STATS_WINDOWS[q.window].chart)
      const unit = UNIT[grain]
      const start = Math.floor(Date.parse(plan.from) / unit) * unit
      const end = Date.parse(plan.to)
      const length = GRAINS[grain]
      const rows = await stats.series(q.dim, q.value, { grain, from: iso(start).slice(0, length), to: iso(Math.ceil(end / unit) * unit).slice(0, length) })
      const byBucket = new Map(rows.map((r) => [r.bucket, r]))
      const points: StatsPoint[] = []
      for (let t = start; t < end; t += unit) {
        const { calls, failed, refused, p50Ms, p95Ms, p99Ms, approvalWaits, waitMedianS } = measures(byBucket.get(iso(t).slice(0, length)))
        points.push({ bucket: iso(t), calls, failed, refused, p50Ms, p95Ms, p99Ms, approvalWaits, waitMedianS })
      }
      return { dim: q.dim, value: q.value, window: q.window, points }
    },
  }
}

const choices = (values: readonly string[]) => values.join(', ')
/** GET /api/stats's query. */
export const statsQuerySchema = z.strictObject({
  dim: z.enum(STATS_TABLE_DIMS, { error: `must be one of ${choices(STATS_TABLE_DIMS)}` }).default('skill'),
  window: z.enum(Object.keys(STATS_WINDOWS) as [StatsWindow], { error: `must be one of ${choices(Object.keys(STATS_WINDOWS))}` }).default('24h'),
  sort: z.enum(STATS_SORTS, { error: `must be one of ${choices(STATS_SORTS)}` }).default('calls'),
  order: z.enum(['asc', 'desc'], { error: 'must be asc or desc' }).default('desc'),
  limit: z.coerce.number({ error: 'must be a number' }).int('must be a whole number').min(1, 'must be at least 1').max(500, 'must be at most 500').default(100),
})
/** GET /api/stats/{dim}/{value}/series's path and query. */
export const statsSeriesDimSchema = z.enum([...STATS_TABLE_DIMS, 'all'], { error: `must be one of ${choices([...STATS_TABLE_DIMS, 'all'])}` })
export const statsSeriesQuerySchema = statsQuerySchema.pick({ window: true })
