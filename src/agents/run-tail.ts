import type { RunRepository } from '../store/index.js'

const POLL_MS = 1_000
// Runs compared in one query.
const PAGE = 500

/** A follower's view of one run's changes: `next` resolves once the run changed since the last call. */
export class RunWatch {
  #dirty = false
  #wake: (() => void) | null = null

  constructor(readonly close: () => void) {}

  /** The run changed: the next `next` returns at once. */
  changed(): void {
    this.#dirty = true
    this.#wake?.()
  }

  /** Resolves once the run changed since the previous call returned (at once if it already has), or `signal` aborts. */
  async next(signal: AbortSignal): Promise<void> {
    if (!this.#dirty && !signal.aborted) {
      let stop = () => {}
      await new Promise<void>((resolve) => {
        this.#wake = resolve
        stop = () => resolve()
        signal.addEventListener('abort', stop, { once: true })
      })
      signal.removeEventListener('abort', stop)
      this.#wake = null
    }
    this.#dirty = false
  }
}

/**
 * Which followed runs changed, on any manager: one shared look a second at every followed run's
 * status and latest step write, and at once when this process records one.
 */
export class RunTail {
  readonly #watches = new Map<string, Set<RunWatch>>()
  // What each followed run looked like at the last look.
  readonly #heads = new Map<string, string>()
  #timer: NodeJS.Timeout | undefined
  #looking = false

  constructor(
    private readonly repo: RunRepository,
    private readonly pollMs = POLL_MS,
  ) {}

  /** Follow a run's changes until the watch is closed. */
  watch(runId: string): RunWatch {
    const watch: RunWatch = new RunWatch(() => {
      const set = this.#watches.get(runId)
      set?.delete(watch)
      if (set?.size === 0) {
        this.#watches.delete(runId)
        this.#heads.delete(runId)
      }
      if (this.#watches.size === 0) {
        clearInterval(this.#timer)
        this.#timer = undefined
      }
    })
    const set = this.#watches.get(runId) ?? new Set()
    set.add(watch)
    this.#watches.set(runId, set)
    if (!this.#timer) {
      this.#timer = setInterval(() => void this.#look(), this.pollMs)
      this.#timer.unref()
    }
    return watch
  }

  /** This process changed the run. */
  changed(runId: string): void {
    for (const watch of this.#watches.get(runId) ?? []) watch.changed()
  }

  async #look(): Promise<void> {
    if (this.#looking) return
    this.#looking = true
    try {
      const ids = [...this.#watches.keys()]
      for (let i = 0; i < ids.length; i += PAGE) {
        for (const head of await this.repo.heads(ids.slice(i, i + PAGE))) {
          const seen = `${head.status} ${head.rev ?? 0}`
          if (this.#heads.get(head.id) === seen) continue
          this.#heads.set(head.id, seen)
          this.changed(head.id)
        }
      }
    } catch {
      // The next look tries again; followers keep what they have until then.
    } finally {
      this.#looking = false
    }
  }
}
