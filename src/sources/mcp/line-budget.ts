/**
 * A token bucket for log lines: `burst` at once, refilled at `perSecond`; what it turns away is
 * counted and reported to `dropped` once per `reportMs`, so a flood costs one line per interval.
 */
export class LineBudget {
  #tokens: number
  #at = Date.now()
  #dropped = 0
  readonly #options: { burst: number; perSecond: number; reportMs: number; dropped(count: number): void }

  constructor(options: { burst: number; perSecond: number; reportMs: number; dropped(count: number): void }) {
    this.#options = options
    this.#tokens = options.burst
  }

  /** Whether one more line may be logged now. */
  take(): boolean {
    const { burst, perSecond, reportMs, dropped } = this.#options
    const now = Date.now()
    this.#tokens = Math.min(burst, this.#tokens + ((now - this.#at) / 1000) * perSecond)
    this.#at = now
    if (this.#tokens >= 1) {
      this.#tokens--
      return true
    }
    if (this.#dropped++ === 0) {
      setTimeout(() => {
        const count = this.#dropped
        this.#dropped = 0
        dropped(count)
      }, reportMs).unref()
    }
    return false
  }
}
