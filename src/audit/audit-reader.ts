import { STATS_KEPT_DAYS, type AuditQuery, type AuditRepository, type CallStatsRepository, type CallTreeRepository, type StatsTile } from '../store/index.js'
import { buildCallTree, type CallTree } from './call-tree.js'
import { toAuditEntry, type AuditEntry } from './audit-entry.js'
import { planHistogram, fillHistogram, type Histogram, type HistogramBucket } from './audit-histogram.js'
import type { AuditRetention, SweepReport } from './audit-retention.js'
import type { Actor } from './audit-events.js'
import { healthReader, type HealthReader } from './call-health.js'
import type { AuditSearcher } from './audit-search.js'

/** The audit's filters as surfaces give them: free text `q` instead of its resolved form. */
export type AuditFilter = Omit<AuditQuery, 'search'> & { q?: string }

// Export pages are this many rows: enough to stream quickly, few enough to never hold the table in memory.
const PAGE_ROWS = 500

/** Audited calls in their public shape (as HTTP and `skillplane audit --json` show them). */
export interface AuditReader {
  query(query: AuditFilter): Promise<{ items: AuditEntry[]; nextCursor: string | null }>
  /** Every call the filter matches in the list's order, a page at a time through its cursor, `max` at most (for export). */
  matching(query: Omit<AuditFilter, 'cursor' | 'limit'>, max: number): AsyncGenerator<AuditEntry[]>
  get(callId: string): Promise<AuditEntry | undefined>
  /** The tree a call belongs to, from its root (its agent run when it has one), or an agent run's tree; undefined when unknown. */
  tree(of: { callId: string } | { runId: string }): Promise<CallTree | undefined>
  /** Calls and failures per minute, hour or day with the list's filters; invalid_input for a range it can't chart. */
  histogram(
    query: Omit<AuditQuery, 'cursor' | 'limit'> & { bucket?: HistogramBucket },
  ): Promise<{ ok: true; histogram: Histogram } | { ok: false; message: string }>
  /** Calls started in [since, until), oldest first, a page at a time (for export: never all in memory). */
  pages(range: { since?: string; until?: string }): AsyncGenerator<AuditEntry[]>
  /** Apply `audit.retentionDays` / `audit.maxRows` now (the daily sweep does it on one manager); audited as `by`. */
  sweep(by?: Actor): Promise<SweepReport>
  /** The heartbeat's daily sweep: runs only on the manager that takes the day's lease; null elsewhere or within a day. */
  dailySweep(): Promise<SweepReport | null>
  /** Every skill's (agent's, edge's, caller's) health over a window, from the call_stats rollup. */
  readonly health: HealthReader
}

/** Read the audit table as entries, chart it, page through it, and sweep it under the retention policy. */
export function auditReader(
  repo: AuditRepository,
  retention: AuditRetention,
  now: () => string,
  searcher: AuditSearcher,
  trees: CallTreeRepository,
  stats: CallStatsRepository,
): AuditReader {
  const resolve = async ({ q, ...query }: AuditFilter): Promise<AuditQuery> => (q === undefined ? query : { ...query, search: await searcher.resolve(q) })
  return {
    health: healthReader(repo, stats, () => Date.parse(now())),
    async query(filter) {
      const page = await repo.query(await resolve(filter))
      return { items: page.items.map(toAuditEntry), nextCursor: page.nextCursor }
    },
    async *matching(filter, max) {
      const query = await resolve({ ...filter, limit: PAGE_ROWS })
      let left = max
      while (left > 0) {
        const page = await repo.query({ ...query, limit: Math.min(PAGE_ROWS, left) })
        if (page.items.length > 0) yield page.items.map(toAuditEntry)
        left -= page.items.length
        if (!page.nextCursor) return
        query.cursor = page.nextCursor
      }
    },
    async get(callId) {
      const row = await repo.get(callId)
      return row && toAuditEntry(row)
    },
    async tree(of) {
      const rows = 'callId' in of ? await trees.ofCall(of.callId) : await trees.ofRun(of.runId)
      return rows && buildCallTree(rows)
    },
    async histogram({ bucket, from, to, ...filters }) {
      const plan = planHistogram({ from, to, bucket }, now())
      if (!plan.ok) return plan
      const rolled = rolledUp(plan, filters, now())
      if (rolled) {
        // Unfiltered or by one skill or agent, the rollup has the buckets counted: no walk of a day's rows.
        await repo.flushStats().catch(() => {}) // A failed flush keeps its counts for the next: a second stale beats a failed chart.
        const buckets = await stats.series(rolled.dim, rolled.value, rolled.tile)
        return {
          ok: true,
          histogram: fillHistogram(
            plan,
            buckets.map((b) => ({ bucket: b.bucket, calls: b.calls, failed: b.failed + b.refused })),
          ),
        }
      }
      return { ok: true, histogram: fillHistogram(plan, await repo.histogram({ ...filters, from: plan.from, to: plan.to, prefix: plan.prefix })) }
    },
    async *pages(range) {
      let after: string | null = null
      for (;;) {
        const rows = await repo.page({ from: range.since, to: range.until, after, limit: PAGE_ROWS })
        if (rows.length > 0) yield rows.map(toAuditEntry)
        if (rows.length < PAGE_ROWS) return
        after = rows[rows.length - 1]!.call_id
      }
    },
    sweep: (by) => retention.sweep(by),
    dailySweep: () => retention.dailySweep(),
  }
}

const GRAIN_OF = { 16: 'm', 13: 'h', 10: 'd' } as const
const BUCKET_MS = { 16: 60_000, 13: 3_600_000, 10: 86_400_000 } as const

/**
 * The rollup's buckets for a chart, when they count exactly what the list's filters would: no
 * filter or one skill or agent, every bucket whole (the chart ends now or on a bucket's edge) and
 * still kept (minute and hour buckets are pruned after STATS_KEPT_DAYS). Calls still running are
 * counted once they finish.
 */
function rolledUp(
  plan: { from: string; to: string; prefix: 10 | 13 | 16 },
  filters: Omit<AuditQuery, 'cursor' | 'limit' | 'from' | 'to'>,
  now: string,
): { dim: 'all' | 'skill' | 'agent'; value: string; tile: StatsTile } | null {
  const { skill, agent, ...others } = filters
  if (Object.values(others).some((v) => v !== undefined) || (skill !== undefined && agent !== undefined)) return null
  const grain = GRAIN_OF[plan.prefix]
  const ms = BUCKET_MS[plan.prefix]
  const end = Date.parse(plan.to)
  if (end % ms !== 0 && end < Date.parse(now)) return null
  if (grain !== 'd' && Date.parse(plan.from) < Date.parse(now) - STATS_KEPT_DAYS[grain] * 86_400_000) return null
  const next = new Date(Math.ceil(end / ms) * ms).toISOString().slice(0, plan.prefix)
  const tile = { grain, from: plan.from.slice(0, plan.prefix), to: next }
  if (skill !== undefined) return { dim: 'skill', value: skill, tile }
  if (agent !== undefined) return { dim: 'agent', value: agent, tile }
  return { dim: 'all', value: '', tile }
}
