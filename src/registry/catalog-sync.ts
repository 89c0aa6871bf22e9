import type { Kysely } from 'kysely'
import type { Logger } from 'pino'
import type { Database } from '../store/index.js'
import type { Catalog } from './catalog.js'
import { syncCatalog, type CatalogEntry, type SyncReport } from './sync.js'

export interface SyncOptions {
  dryRun?: boolean
  prune?: boolean | readonly string[]
  force?: boolean
}

export interface CatalogSyncOptions {
  db: Kysely<Database>
  catalog: Catalog
  /** What the catalog should hold: every registered skill and instruction skill. */
  entries(): CatalogEntry[]
  agents: Parameters<typeof syncCatalog>[0]['agents']
  /** False for a plane opened without its sources: its registry holds too little to say what the catalog should be. */
  enabled: boolean
  logger: Logger
  now(): string
}

/** The catalog sync queue: one sync at a time (MCP servers and edges changing in the background sync too). */
export class CatalogSync {
  readonly #o: CatalogSyncOptions
  #turn: Promise<unknown> = Promise.resolve()

  constructor(options: CatalogSyncOptions) {
    this.#o = options
  }

  /** Make the catalog match the skills now; refused (SyncRefusedError) when it would orphan a non-empty catalog, unless `force`. */
  run(options: SyncOptions = {}): Promise<SyncReport> {
    const { db, catalog, entries, agents, enabled, now } = this.#o
    if (!enabled) return Promise.reject(new Error('a plane opened without its sources (sources: false) cannot sync the catalog'))
    const run = this.#turn.then(async () => {
      const report = await syncCatalog({
        db,
        entries: entries(),
        agents,
        dryRun: options.dryRun ?? false,
        prune: options.prune ?? false,
        force: options.force ?? false,
        now: now(),
      })
      if (!report.dryRun) await catalog.refresh()
      return report
    })
    this.#turn = run.catch(() => {})
    return run
  }

  /** Sync after a change nobody waits for (an MCP server's or an edge's tools); a failure is logged. */
  inBackground(after: string): void {
    this.run().catch((error) => this.#o.logger.warn({ err: error }, `catalog sync after ${after} failed`))
  }

  /** Wait for the sync running now, if any (shutdown). */
  async drain(): Promise<void> {
    await this.#turn
  }
}
