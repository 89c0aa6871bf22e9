/**
 * The plane's shutdown, in order: work stops arriving, running calls end, their rows are written,
 * then the store closes. Parts made so far register their closer under their step, so a start-up
 * that fails half-way closes exactly what it opened, in the same order.
 */
export const SHUTDOWN_ORDER = [
  'heartbeat',
  'notifier',
  'pipeline',
  'edges',
  'listener',
  'sources',
  'services',
  'sync',
  'discovery',
  'writes',
  'backlog',
  'processes',
  'liveness',
  'database',
] as const

export type ShutdownStep = (typeof SHUTDOWN_ORDER)[number]

export class Shutdown {
  readonly #closers = new Map<ShutdownStep, () => unknown>()
  #closed: Promise<void> | null = null
  #stopping = false

  /** Close `step`'s part when the plane closes. */
  on(step: ShutdownStep, close: () => unknown): void {
    // A second closer for a step would silently replace the first, leaving a part open.
    if (this.#closers.has(step)) throw new Error(`shutdown step "${step}" has a closer already`)
    this.#closers.set(step, close)
  }

  get closing(): boolean {
    return this.#stopping || this.#closed !== null
  }

  /** New calls are refused from now on, while what wraps the plane (agent runs) closes before it. */
  stopAccepting(): void {
    this.#stopping = true
  }

  /** Run the registered closers in order, once; later calls get the same promise. */
  run(): Promise<void> {
    this.#closed ??= (async () => {
      for (const step of SHUTDOWN_ORDER) await this.#closers.get(step)?.()
    })()
    return this.#closed
  }

  /** A start-up failed: close what was opened, ignoring what fails to close, and rethrow the failure. */
  async abort(error: unknown): Promise<never> {
    for (const step of SHUTDOWN_ORDER) {
      try {
        await this.#closers.get(step)?.()
      } catch {
        // The start-up's own failure is what the caller needs to see.
      }
    }
    throw error
  }
}
