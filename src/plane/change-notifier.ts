import type { Logger } from 'pino'

/** Listeners told, coalesced, that skills, the catalog, bindings or policies changed. */
export class ChangeNotifier {
  readonly #listeners = new Set<() => void>()
  readonly #logger: Logger
  #timer: NodeJS.Timeout | undefined
  #version = 0

  constructor(logger: Logger) {
    this.#logger = logger
  }

  /** Add a listener; returns its unsubscribe function. */
  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  /** Moves at once with every change (listeners hear later): what caches of tool lists check. */
  get version(): number {
    return this.#version
  }

  /** Something changed: listeners hear once within 20 ms, however many changes arrive. */
  readonly changed = (): void => {
    this.#version++
    if (this.#timer || this.#listeners.size === 0) return
    this.#timer = setTimeout(() => {
      this.#timer = undefined
      for (const listener of this.#listeners) {
        try {
          listener()
        } catch (error) {
          this.#logger.warn({ err: error }, 'a skills-changed listener failed')
        }
      }
    }, 20)
    this.#timer.unref()
  }

  close(): void {
    clearTimeout(this.#timer)
    this.#listeners.clear()
  }
}
