import { DeadlineExceeded } from './abort-reasons.js'
import type { CallCancel } from './call-cancel.js'

interface Deadline {
  at: number
  timeoutMs: number
  cancel: CallCancel
}

/**
 * The deadlines of running calls on one timer, armed for the earliest: a call that ends in time
 * costs a set entry, not a timer of its own. The timer holds the process open only while a call runs.
 */
export class Deadlines {
  readonly #running = new Set<Deadline>()
  #timer: NodeJS.Timeout | undefined
  #armedAt = Infinity

  /** Cancel the call with `DeadlineExceeded` once `timeoutMs` has passed, unless `end` comes first. */
  start(cancel: CallCancel, timeoutMs: number): Deadline {
    const deadline = { at: performance.now() + timeoutMs, timeoutMs, cancel }
    this.#running.add(deadline)
    if (deadline.at < this.#armedAt) this.#arm(deadline.at)
    else if (this.#running.size === 1) this.#timer!.ref()
    return deadline
  }

  end(deadline: Deadline): void {
    this.#running.delete(deadline)
    if (this.#running.size === 0) this.#timer?.unref()
  }

  #arm(at: number): void {
    clearTimeout(this.#timer)
    this.#armedAt = at
    this.#timer = setTimeout(() => this.#fire(), Math.max(0, at - performance.now()))
  }

  #fire(): void {
    this.#timer = undefined
    this.#armedAt = Infinity
    const now = performance.now()
    let next = Infinity
    for (const deadline of this.#running) {
      if (deadline.at <= now) {
        this.#running.delete(deadline)
        deadline.cancel.abort(new DeadlineExceeded(deadline.timeoutMs))
      } else if (deadline.at < next) next = deadline.at
    }
    if (next !== Infinity) this.#arm(next)
  }
}
