/** Sends resources/subscribe (true) or resources/unsubscribe (false) for one URI upstream. */
export type SendSubscription = (uri: string, subscribe: boolean) => Promise<void>

interface Entry {
  listeners: Set<(uri: string) => void>
  /** Whether the server's current session holds the subscription. */
  upstream: boolean
  /** Subscribe and unsubscribe of one URI go out one at a time, in order. */
  queue: Promise<void>
}

/**
 * The resource subscriptions of one upstream connection, or of one person across their sessions on a per-person server: one upstream subscription per URI however
 * many listen (the first listener subscribes, the last one gone unsubscribes), sent again on each
 * new session, and the server's updates handed to that URI's listeners.
 */
export class ResourceSubscriptions {
  readonly #entries = new Map<string, Entry>()
  readonly #warn: (uri: string, error: unknown) => void

  constructor(warn: (uri: string, error: unknown) => void) {
    this.#warn = warn
  }

  /** Whether anything listens (a session with subscriptions is in use). */
  get size(): number {
    return this.#entries.size
  }

  /** Listen to `uri`; resolves once the server holds the subscription (rejects, listening to nothing, when it refuses). */
  async add(uri: string, listener: (uri: string) => void, send: SendSubscription): Promise<() => void> {
    let entry = this.#entries.get(uri)
    if (!entry) this.#entries.set(uri, (entry = { listeners: new Set(), upstream: false, queue: Promise.resolve() }))
    // A listener of its own, so one function added twice is still two subscriptions.
    const own = (u: string) => listener(u)
    entry.listeners.add(own)
    try {
      await this.#reconcile(uri, entry, send)
    } catch (error) {
      entry.listeners.delete(own)
      this.#settle(uri, entry, send)
      throw error
    }
    let removed = false
    return () => {
      if (removed) return
      removed = true
      entry.listeners.delete(own)
      this.#settle(uri, entry, send)
    }
  }

  /** The server says `uri` changed. */
  updated(uri: string): void {
    for (const listener of this.#entries.get(uri)?.listeners ?? []) listener(uri)
  }

  /** The session is gone: a new one holds no subscription until they are sent again. */
  lost(): void {
    for (const entry of this.#entries.values()) entry.upstream = false
  }

  /** A new session: every URI still listened to is subscribed again. */
  resend(send: SendSubscription): void {
    for (const [uri, entry] of this.#entries) this.#settle(uri, entry, send)
  }

  #settle(uri: string, entry: Entry, send: SendSubscription): void {
    this.#reconcile(uri, entry, send).catch((error) => this.#warn(uri, error))
  }

  /** Bring the upstream side in line with whether anyone listens, after what is queued for this URI. */
  #reconcile(uri: string, entry: Entry, send: SendSubscription): Promise<void> {
    const step = entry.queue.then(async () => {
      const wanted = entry.listeners.size > 0
      try {
        if (wanted !== entry.upstream) {
          await send(uri, wanted)
          entry.upstream = wanted
        }
      } finally {
        // Nobody listens: the entry goes even when the server refused the unsubscribe (its updates reach no one), so the session can idle.
        if (entry.listeners.size === 0 && this.#entries.get(uri) === entry) {
          entry.upstream = false
          this.#entries.delete(uri)
        }
      }
    })
    entry.queue = step.catch(() => {})
    return step
  }
}
