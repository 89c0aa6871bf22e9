import { appendFileSync, createReadStream, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import type { Logger } from 'pino'
import type { AuditRow } from '../store/index.js'
import { processExists } from '../system/index.js'

interface RowSink {
  upsertMany(rows: AuditRow[]): Promise<void>
}

// Rows per database write while draining: bounds the memory a drain holds at once.
const BATCH = 500
const RETRY_MIN_MS = 250
const RETRY_MAX_MS = 5_000
// Backlogs of managers open in this process: a sibling plane must not drain a live one's file.
const open = new Set<string>()

/**
 * Final audit rows the database refused (an outage), kept in order in an append-only file under
 * the data dir and written again until the database takes them. The file is the backlog, so
 * memory stays bounded however long the outage lasts, and a crash loses none of them: the next
 * start writes them before recovery marks anything interrupted.
 */
export class AuditBacklog {
  readonly #dir: string
  readonly #file: string
  readonly #draining: string
  #pending = 0
  #timer: NodeJS.Timeout | undefined
  #delay = RETRY_MIN_MS
  #running: Promise<boolean> | null = null
  #closed = false

  constructor(
    dir: string,
    private readonly managerId: string,
    private readonly sink: RowSink,
    private readonly logger: Logger,
  ) {
    this.#dir = dir
    this.#file = join(dir, `${managerId}.${process.pid}.jsonl`)
    this.#draining = `${this.#file}.draining`
    open.add(managerId)
  }

  /** Rows waiting for the database. */
  get size(): number {
    return this.#pending
  }

  /** Keep a row the database refused; it is written once the database is back. */
  add(row: AuditRow): void {
    if (this.#pending === 0)
      this.logger.warn({ dir: this.#dir }, 'the database refused a finished audit row: keeping finished rows in a local backlog until it is back')
    mkdirSync(this.#dir, { recursive: true })
    appendFileSync(this.#file, JSON.stringify(row) + '\n')
    this.#pending++
    this.#schedule()
  }

  /** Try to write everything now; true when the backlog is empty afterwards. */
  flush(): Promise<boolean> {
    this.#running ??= this.#flush().finally(() => (this.#running = null))
    return this.#running
  }

  /** Stop retrying; whatever is left stays in the file for the next start. */
  close(): void {
    this.#closed = true
    clearTimeout(this.#timer)
    open.delete(this.managerId)
  }

  /**
   * Write the backlogs that managers of this data dir left behind (a crash or a shutdown during an
   * outage), oldest first; returns how many rows. Files of managers still running are theirs.
   */
  static async replay(dir: string, sink: RowSink): Promise<number> {
    if (!existsSync(dir)) return 0
    let rows = 0
    // Oldest manager first (ULID ids sort by age), and of one manager the draining file first.
    const order = (name: string) => (name.endsWith('.draining') ? name.slice(0, -'.draining'.length) + '.0' : name + '.1')
    const files = readdirSync(dir)
      .filter((name) => /\.jsonl(\.draining)?$/.test(name))
      .sort((a, b) => (order(a) < order(b) ? -1 : 1))
    for (const name of files) {
      const [managerId, pid] = name.split('.') as [string, string]
      if (open.has(managerId) || (Number(pid) !== process.pid && processExists(Number(pid)))) continue
      rows += await writeFile(join(dir, name), sink)
      rmSync(join(dir, name), { force: true })
    }
    return rows
  }

  #schedule(): void {
    if (this.#timer || this.#closed) return
    this.#timer = setTimeout(() => {
      this.#timer = undefined
      void this.flush().then((empty) => {
        if (empty) return
        this.#delay = Math.min(this.#delay * 2, RETRY_MAX_MS)
        this.#schedule()
      })
    }, this.#delay)
    this.#timer.unref()
  }

  async #flush(): Promise<boolean> {
    try {
      // Rows kept while an earlier drain failed part-way come first, then the rest, in order.
      for (;;) {
        if (!existsSync(this.#draining)) {
          if (!existsSync(this.#file)) break
          renameSync(this.#file, this.#draining)
        }
        const written = await writeFile(this.#draining, this.sink)
        rmSync(this.#draining, { force: true })
        this.#pending = Math.max(0, this.#pending - written)
        this.logger.info({ rows: written }, 'audit backlog written: the database took the finished rows it had refused')
      }
      this.#pending = 0
      this.#delay = RETRY_MIN_MS
      return true
    } catch (error) {
      this.logger.debug({ err: error }, 'audit backlog: the database still refuses rows')
      return false
    }
  }
}

/** Write a backlog file's rows in order, a batch at a time; returns how many. */
async function writeFile(file: string, sink: RowSink): Promise<number> {
  if (statSync(file).size === 0) return 0
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity })
  let batch: AuditRow[] = []
  let written = 0
  for await (const line of lines) {
    // A crash can cut the last line short: what can't be parsed was never a whole row.
    if (!line.trim()) continue
    try {
      batch.push(JSON.parse(line) as AuditRow)
    } catch {
      continue
    }
    if (batch.length === BATCH) {
      await sink.upsertMany(batch)
      written += batch.length
      batch = []
    }
  }
  if (batch.length > 0) await sink.upsertMany(batch)
  return written + batch.length
}
