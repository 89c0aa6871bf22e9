/**
 * A call running on the edge: its cancellation (the manager's cancel, its deadline, the connection
 * closing) and the AbortSignal its skill sees, made only when the skill asks for it (a no-op never
 * does), aborted with the same reason if the call was cancelled before.
 */
export class RunningCall {
  #controller: AbortController | undefined
  #aborted = false
  #reason: unknown
  #reject: ((reason: unknown) => void) | undefined

  get aborted(): boolean {
    return this.#aborted
  }

  get reason(): unknown {
    return this.#reason
  }

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController()
      if (this.#aborted) this.#controller.abort(this.#reason)
    }
    return this.#controller.signal
  }

  abort(reason: unknown): void {
    if (this.#aborted) return
    this.#aborted = true
    this.#reason = reason
    this.#controller?.abort(reason)
    this.#reject?.(reason)
  }

  /** The skill's result, or a rejection with the reason as soon as the call is cancelled. */
  race<T>(value: T | PromiseLike<T>): Promise<T> {
    if (!isThenable(value)) return this.#aborted ? Promise.reject(this.#reason) : Promise.resolve(value)
    const promise = Promise.resolve(value)
    // A skill that fails after the cancel won must not become an unhandled rejection.
    promise.catch(() => {})
    if (this.#aborted) return Promise.reject(this.#reason)
    return new Promise<T>((resolve, reject) => {
      this.#reject = reject
      promise.then(resolve, reject)
    })
  }
}

function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function'
}
