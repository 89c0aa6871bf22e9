import type { McpSessionRepository, NewMcpEvent } from '../../store/index.js'

// The most events one transaction takes: a PostgreSQL statement has at most 65,535 parameters (5 an event).
const MAX_BATCH = 500

/** What a queued item resolves with: a stored event's id and size, or for a mark the last id its session stored before it (none: undefined). */
export type Written = { id: number; bytes: number } | { id: number | undefined; bytes: 0 }

interface Pending {
  /** An event to store, or a mark (`sessionId` only): a place in the order that stores nothing. */
  event: NewMcpEvent | { sessionId: string; mark: true }
  resolve: (written: Written) => void
  reject: (error: unknown) => void
}

/**
 * Group commit of /mcp stream events: the events stored in the same turn of the event loop, whatever
 * their session, go to the database in one transaction, and each promise resolves once its event is
 * committed, all in the order they were queued (so the transport, which writes an event as soon as it
 * is stored, writes them in that order).
 */
export class StreamEventWriter {
  #queue: Pending[] = []
  #flushing: Promise<void> | null = null
  #scheduled = false

  constructor(private readonly repo: McpSessionRepository) {}

  /** Store an event: its id once committed. */
  write(event: NewMcpEvent): Promise<Written> {
    return this.#push(event)
  }

  /**
   * A place in the order, storing nothing: resolves, in order with the events queued around it, with the
   * id of the last event of its session stored in the same batch before it (undefined: none in the batch).
   */
  mark(sessionId: string): Promise<Written> {
    return this.#push({ sessionId, mark: true })
  }

  /** Resolves once everything queued so far is written (or has failed). */
  async drain(): Promise<void> {
    while (this.#queue.length > 0 || this.#flushing || this.#scheduled) {
      if (this.#flushing) await this.#flushing
      else await new Promise((resolve) => setImmediate(resolve))
    }
  }

  #push(event: Pending['event']): Promise<Written> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ event, resolve, reject })
      this.#schedule()
    })
  }

  #schedule(): void {
    if (this.#scheduled || this.#flushing) return
    this.#scheduled = true
    // A turn of the event loop gathers what its callers store together (a call's log line and its answer, concurrent calls).
    setImmediate(() => {
      this.#scheduled = false
      this.#flushing = this.#flush().finally(() => {
        this.#flushing = null
        if (this.#queue.length > 0) this.#schedule()
      })
    })
  }

  async #flush(): Promise<void> {
    const batch = this.#queue.splice(0, MAX_BATCH)
    const events = batch.flatMap((p) => ('mark' in p.event ? [] : [p.event]))
    let written: Array<{ id: number; bytes: number } | Error>
    try {
      written = await this.repo.addEvents(events)
    } catch (error) {
      // One event that can't be stored must not fail its neighbours: each is tried alone, in order, so only it fails.
      written = []
      for (const event of events)
        written.push(
          await this.repo.addEvents([event]).then(
            ([one]) => one!,
            (e: unknown) => asError(e),
          ),
        )
    }
    const last = new Map<string, number>()
    let next = 0
    for (const pending of batch) {
      if ('mark' in pending.event) {
        pending.resolve({ id: last.get(pending.event.sessionId), bytes: 0 })
        continue
      }
      const result = written[next++]!
      if (result instanceof Error) pending.reject(result)
      else {
        last.set(pending.event.sessionId, result.id)
        pending.resolve(result)
      }
    }
  }
}

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)))
