import { decodeTime, encodeTime } from 'ulid'
import type { EventRepository } from '../store/index.js'
import { toEvent, type AuditEvent } from './audit-event.js'

const POLL_MS = 1_000
// An event committed this long after its id was taken (a slow transaction, a manager whose clock
// is behind) is still delivered: each look re-reads this much and skips what it already sent.
const WINDOW_MS = 10_000
const PAGE = 500

/**
 * Audit events as they are written, by any manager: one shared look at the table a second (and at
 * once when this process writes one) while anyone listens, each event delivered once.
 */
export class EventTail {
  readonly #listeners = new Set<(event: AuditEvent) => void>()
  // Ids delivered within the window, with their time.
  readonly #seen = new Map<string, number>()
  #timer: NodeJS.Timeout | undefined
  #running: Promise<void> | null = null
  #again = false
  #primed: Promise<void> | null = null

  constructor(
    private readonly repo: EventRepository,
    private readonly pollMs = POLL_MS,
  ) {}

  /** Hear every event written from now on; returns the unsubscribe function. */
  subscribe(listener: (event: AuditEvent) => void): () => void {
    this.#listeners.add(listener)
    if (this.#listeners.size === 1) this.#start()
    return () => {
      this.#listeners.delete(listener)
      if (this.#listeners.size === 0) this.#stop()
    }
  }

  /** Resolves once events written before now will not be delivered as new. */
  ready(): Promise<void> {
    return this.#primed ?? Promise.resolve()
  }

  /** Look now: this process just wrote an event. */
  poke(): void {
    if (this.#listeners.size > 0) void this.#look()
  }

  /** Events after `id` (exclusive), oldest first, at most `limit`: what a reconnecting listener missed. */
  async after(id: string, limit: number): Promise<AuditEvent[]> {
    const rows = await this.repo.since(id, limit + 1)
    return rows
      .filter((row) => row.id !== id)
      .slice(0, limit)
      .map(toEvent)
  }

  #start(): void {
    this.#seen.clear()
    // What is already there is not news: the first look only marks it seen.
    this.#primed = this.#read(false).catch(() => {})
    this.#timer = setInterval(() => void this.#look(), this.pollMs)
    this.#timer.unref()
  }

  #stop(): void {
    clearInterval(this.#timer)
    this.#timer = undefined
    this.#primed = null
  }

  #look(): Promise<void> {
    if (this.#running) {
      this.#again = true
      return this.#running
    }
    this.#running = (async () => {
      await this.#primed
      do {
        this.#again = false
        await this.#read(true).catch(() => {})
      } while (this.#again && this.#listeners.size > 0)
    })().finally(() => (this.#running = null))
    return this.#running
  }

  async #read(deliver: boolean): Promise<void> {
    const now = Date.now()
    let from = `${encodeTime(Math.max(now - WINDOW_MS, 0), 10)}${'0'.repeat(16)}`
    for (;;) {
      const rows = await this.repo.since(from, PAGE)
      for (const row of rows) {
        if (this.#seen.has(row.id)) continue
        this.#seen.set(row.id, decodeTime(row.id))
        if (!deliver) continue
        const event = toEvent(row)
        for (const listener of this.#listeners) listener(event)
      }
      if (rows.length < PAGE) break
      from = rows[rows.length - 1]!.id
    }
    for (const [id, at] of this.#seen) if (at < now - 2 * WINDOW_MS) this.#seen.delete(id)
  }
}
