import type { AuditQuery, AuditRepository, CallStatsRepository, CallTreeRepository } from '../store/index.js'
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
