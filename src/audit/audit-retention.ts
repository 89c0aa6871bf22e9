import { open, unlink, type FileHandle } from 'node:fs/promises'
import { createReadStream } from 'node:fs'
import { createInterface } from 'node:readline'
import { dirname, join, resolve } from 'node:path'
import type { Logger } from 'pino'
import {
  STATS_KEPT_DAYS,
  type AuditRepository,
  type AuditRow,
  type CallStatsRepository,
  type LeaseRepository,
  type SettingsRepository,
} from '../store/index.js'
import { toAuditEntry } from './audit-entry.js'
import { SYSTEM_ACTOR, type Actor, type AuditEvents } from './audit-events.js'

export interface RetentionPolicy {
  retentionDays?: number | undefined
  maxRows?: number | undefined
  /** Rows about to be deleted are written here as JSON lines first; relative to the working directory. */
  exportDir?: string | undefined
}

export interface SweepReport {
  /** Calls started before this were due for deletion (null without retentionDays). */
  cutoff: string | null
  deleted: number
  exported: number
  /** The JSON-lines file this sweep wrote, when exportDir is set and there was something to delete. */
  file: string | null
  /** Why nothing was deleted, when the export failed. */
  error: string | null
}

const DAY_MS = 24 * 60 * 60 * 1000
// Rows per delete statement (one transaction each): short locks, the call path interleaves.
const BATCH = 1_000
const SWEEP_LEASE = 'audit.sweep'
const STATS_LEASE = 'stats.prune'
const SETTING = 'audit_retention'
const TRY_EVERY_MS = 60_000

/** Audit retention: the configured policy, recorded when it changes, and the daily sweep on one manager. */
export class AuditRetention {
  #triedAt = 0
  readonly #exportDir: string | undefined
  // One sweep at a time in this process: a manual one and the daily one would export the same rows twice.
  #sweeping: Promise<unknown> = Promise.resolve()

  constructor(
    private readonly deps: {
      repo: AuditRepository
      stats: CallStatsRepository
      leases: LeaseRepository
      settings: SettingsRepository
      events: AuditEvents
      policy: RetentionPolicy
      clock: () => Date
      managerId: string
      logger: Logger
    },
  ) {
    this.#exportDir = deps.policy.exportDir === undefined ? undefined : resolve(deps.policy.exportDir)
  }

  get enabled(): boolean {
    return this.deps.policy.retentionDays !== undefined || this.deps.policy.maxRows !== undefined
  }

  /** At start: store the policy as configured and audit it when it differs from the one stored last (once across managers). */
  async recordPolicy(): Promise<void> {
    const { retentionDays = null, maxRows = null, exportDir = null } = this.deps.policy
    const policy = { retentionDays, maxRows, exportDir }
    const changed = await this.deps.settings.change(SETTING, JSON.stringify(policy))
    // A first start with no retention configured changes nothing worth an event.
    if (!changed || (changed.previous === null && !this.enabled)) return
    const previous = changed.previous === null ? null : (JSON.parse(changed.previous) as unknown)
    await this.deps.events.record('audit.retention', 'audit', SYSTEM_ACTOR, { ...policy, previous, managerId: this.deps.managerId })
  }

  /** The heartbeat's attempt: at most once a minute per manager, so idle managers don't write every few seconds. */
  async dailySweepDue(): Promise<void> {
    if (Date.now() - this.#triedAt < TRY_EVERY_MS) return
    this.#triedAt = Date.now()
    await this.dailySweep()
  }

  /** Once a day across managers: drop minute and hour stats buckets older than STATS_KEPT_DAYS; how many went. */
  async pruneStats(): Promise<number | null> {
    const now = this.deps.clock()
    const taken = await this.deps.leases.claim(STATS_LEASE, this.deps.managerId, now.toISOString(), new Date(now.getTime() + DAY_MS).toISOString())
    if (!taken) return null
    let pruned = 0
    for (const [grain, days] of Object.entries(STATS_KEPT_DAYS) as Array<['m' | 'h', number]>) {
      pruned += await this.deps.stats.prune(grain, new Date(now.getTime() - days * DAY_MS).toISOString())
    }
    return pruned
  }

  /** The daily sweep, on whichever manager takes the day's lease first; null when another has it or it ran within a day. */
  async dailySweep(): Promise<SweepReport | null> {
    // The health stats' fine buckets go whether or not audit rows are kept for a limited time.
    await this.pruneStats()
    if (!this.enabled) return null
    const now = this.deps.clock()
    const taken = await this.deps.leases.claim(SWEEP_LEASE, this.deps.managerId, now.toISOString(), new Date(now.getTime() + DAY_MS).toISOString())
    return taken ? this.sweep() : null
  }

  /** Delete what the policy no longer keeps, exporting it first when configured; audited as `audit.sweep` by `by`. */
  sweep(by: Actor = SYSTEM_ACTOR): Promise<SweepReport> {
    const run = this.#sweeping.then(() => this.#sweep(by))
    this.#sweeping = run.catch(() => {})
    return run
  }

  async #sweep(by: Actor): Promise<SweepReport> {
    const { retentionDays, maxRows } = this.deps.policy
    const exportDir = this.#exportDir
    const now = this.deps.clock()
    const cutoff = retentionDays === undefined ? null : new Date(now.getTime() - retentionDays * DAY_MS).toISOString()
    // Counted once: the cap is what stands beyond maxRows now, less what the age rule removes.
    const excess = maxRows === undefined ? 0 : (await this.deps.repo.count()) - maxRows
    const report: SweepReport = { cutoff, deleted: 0, exported: 0, file: null, error: null }
    if (exportDir === undefined) {
      for await (const batch of this.#due(cutoff, excess)) report.deleted += await this.deps.repo.deleteCalls(batch.map((r) => r.call_id))
    } else {
      const base = join(exportDir, `audit-${now.toISOString().replaceAll(':', '-')}-${this.deps.managerId}`)
      try {
        const exported = await this.#export(base, cutoff, excess)
        report.exported = exported.count
        report.file = exported.file
      } catch (error) {
        report.error = `exporting to ${base}.jsonl failed, so nothing was deleted: ${error instanceof Error ? error.message : String(error)}`
      }
      if (report.file) {
        try {
          report.deleted = await this.#deleteExported(report.file, report.exported)
        } catch (error) {
          // The file holds every row, deleted or not: nothing is lost, and the sweep is still recorded.
          report.error = `deleting the rows exported to ${report.file} failed partway: ${error instanceof Error ? error.message : String(error)}`
        }
      }
    }
    if (report.error) this.deps.logger.error({ file: report.file }, report.error)
    else if (report.deleted > 0) this.deps.logger.info({ deleted: report.deleted, cutoff, file: report.file }, 'swept old audit rows')
    await this.deps.events.record('audit.sweep', 'audit', by, { ...report, retentionDays: retentionDays ?? null, maxRows: maxRows ?? null })
    return report
  }

  /**
   * The rows due, oldest call first, a batch at a time: started before the cutoff, then the oldest others
   * while the cap is exceeded. Deleted rows leave the table, so paging after the last call fits both uses.
   */
  async *#due(cutoff: string | null, excess: number): AsyncGenerator<AuditRow[]> {
    let remaining = excess
    let after: string | null = null
    while (cutoff !== null) {
      const batch: AuditRow[] = await this.deps.repo.page({ to: cutoff, after, limit: BATCH, removable: true })
      if (batch.length === 0) break
      remaining -= batch.length
      after = batch[batch.length - 1]!.call_id
      yield batch
      await new Promise((r) => setImmediate(r))
    }
    after = null
    while (remaining > 0) {
      const batch: AuditRow[] = await this.deps.repo.page({
        ...(cutoff !== null && { from: cutoff }),
        after,
        limit: Math.min(BATCH, remaining),
        removable: true,
      })
      if (batch.length === 0) break
      remaining -= batch.length
      after = batch[batch.length - 1]!.call_id
      yield batch
      await new Promise((r) => setImmediate(r))
    }
  }

  /** Write every due row to a new file and fsync it (and its folder) before anything is deleted; no file when none is due. */
  async #export(base: string, cutoff: string | null, excess: number): Promise<{ file: string | null; count: number }> {
    const { file, handle } = await create(base)
    let count = 0
    try {
      try {
        for await (const batch of this.#due(cutoff, excess)) {
          // writeFile loops until every byte is written, where a single write may stop short on a nearly full disk.
          await handle.writeFile(batch.map((row) => JSON.stringify(toAuditEntry(row)) + '\n').join(''))
          count += batch.length
        }
        await handle.sync()
      } finally {
        await handle.close()
      }
      if (count === 0) {
        await unlink(file)
        return { file: null, count }
      }
      const dir = await open(dirname(file), 'r')
      try {
        await dir.sync()
      } finally {
        await dir.close()
      }
      return { file, count }
    } catch (error) {
      // Only the file this sweep created: a partial one would pass for a complete export.
      await unlink(file).catch(() => {})
      throw error
    }
  }

  /** Delete exactly the calls the file holds, a batch per statement: a row that finished after the export stays. */
  async #deleteExported(file: string, exported: number): Promise<number> {
    // Read back whole before anything is deleted: a file that doesn't hold every exported row deletes nothing.
    const all: string[] = []
    for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) all.push((JSON.parse(line) as { callId: string }).callId)
    if (all.length !== exported) throw new Error(`the file holds ${all.length} rows, not the ${exported} exported; nothing was deleted`)
    let deleted = 0
    let ids: string[] = []
    for (const id of all) {
      ids.push(id)
      if (ids.length === BATCH) {
        deleted += await this.deps.repo.deleteCalls(ids)
        ids = []
        await new Promise((r) => setImmediate(r))
      }
    }
    return deleted + (await this.deps.repo.deleteCalls(ids))
  }
}

/** A new file named after the sweep, never over an earlier one (two sweeps in one millisecond get -2, -3, …). */
async function create(base: string): Promise<{ file: string; handle: FileHandle }> {
  for (let n = 1; ; n++) {
    const file = `${base}${n === 1 ? '' : `-${n}`}.jsonl`
    try {
      return { file, handle: await open(file, 'wx', 0o600) }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
  }
}
