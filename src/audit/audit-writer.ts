import type { AuditRepository, AuditRow } from '../store/index.js'
import type { AuditBacklog } from './audit-backlog.js'

// Lone commits per turn of the event loop: a sequential caller's calls commit without waiting a
// turn each, and timers and I/O still get one at least every few hundred microseconds.
const QUICK_PER_TURN = 16

interface Pending {
  row: AuditRow
  resolve: () => void
  reject: (error: unknown) => void
}

/**
 * Group commit: writes queued in the same turn of the event loop go to the database in one
 * statement, and each write's promise resolves only once its row is committed.
 */
export class AuditWriter {
  #queue: Pending[] = []
  #inFlight = 0
  #scheduled = false
  #flushing: Promise<void> | null = null
  // Rows in the last batch: a writer alone commits at the end of the current job (no turn of the
  // event loop in between); once rows arrive together it waits a turn to gather them.
  #lastBatch = 2
  // Such commits left in this turn: the rest wait for the next (QUICK_PER_TURN).
  #quickLeft = QUICK_PER_TURN
  readonly #finished = new Set<(row: AuditRow) => void>()

  constructor(
    private readonly repository: AuditRepository,
    private readonly backlog?: AuditBacklog,
  ) {}

  /**
   * A finished call's row: committed now, or, while the database refuses rows, kept in the
   * backlog (behind the rows already there, so they land in order) and written once it is back.
   */
  async finish(row: AuditRow): Promise<'written' | 'kept'> {
    for (const listener of this.#finished) listener(row)
    if (this.backlog && this.backlog.size > 0) {
      this.backlog.add(row)
      return 'kept'
    }
    try {
      await this.write(row)
      return 'written'
    } catch (error) {
      if (!this.backlog) throw error
      this.backlog.add(row)
      return 'kept'
    }
  }

  /** Called with each finished call's row as it is handed to the writer. Returns the unsubscribe function. */
  onFinish(listener: (row: AuditRow) => void): () => void {
    this.#finished.add(listener)
    return () => this.#finished.delete(listener)
  }

  /** Rows queued or being committed now. */
  get depth(): number {
    return this.#queue.length + this.#inFlight
  }

  write(row: AuditRow): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ row, resolve, reject })
      this.#schedule()
    })
  }

  /** Resolves when everything queued so far is committed (or has failed). */
  async drain(): Promise<void> {
    while (this.#queue.length > 0 || this.#flushing || this.#scheduled) {
      if (this.#flushing) await this.#flushing
      else await new Promise((resolve) => setImmediate(resolve))
    }
  }

  #schedule(): void {
    if (this.#scheduled || this.#flushing) return
    this.#scheduled = true
    if (this.#lastBatch === 1 && this.#quickLeft > 0) {
      if (this.#quickLeft-- === QUICK_PER_TURN) setImmediate(() => (this.#quickLeft = QUICK_PER_TURN))
      queueMicrotask(() => void this.#flush())
    } else {
      setImmediate(() => void this.#flush())
    }
  }

  async #flush(): Promise<void> {
    this.#scheduled = false
    const batch = this.#queue
    this.#queue = []
    this.#lastBatch = batch.length
    this.#inFlight = batch.length
    // The same call can be queued twice only if a writer re-finishes it; the last version wins.
    const rows = new Map<string, AuditRow>()
    for (const pending of batch) rows.set(pending.row.call_id, pending.row)
    this.#flushing = this.repository.upsertMany([...rows.values()]).then(
      () => batch.forEach((p) => p.resolve()),
      // One bad row must not fail its neighbours: retry each alone, so only it fails.
      (error) =>
        batch.length === 1
          ? batch[0]!.reject(error)
          : Promise.all(batch.map((p) => this.repository.upsertMany([p.row]).then(p.resolve, p.reject))).then(() => {}),
    )
    await this.#flushing
    this.#flushing = null
    this.#inFlight = 0
    if (this.#queue.length > 0) this.#schedule()
  }
}
