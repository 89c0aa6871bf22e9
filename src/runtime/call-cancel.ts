/**
 * What tells a call its caller went away: an AbortSignal, or anything that says the same in its
 * shape (the HTTP surface listens to its response closing instead of making a signal per request).
 */
export interface CallerSignal {
  readonly aborted: boolean
  readonly reason: unknown
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void
  removeEventListener(type: 'abort', listener: () => void): void
}

/**
 * A call's cancellation: its deadline, a shutdown, or its caller going away. The AbortSignal
 * executors see is made only when something asks for it (most calls finish without anyone
 * looking), and aborts with the same reason if the call was cancelled before.
 */
export class CallCancel {
  #controller: AbortController | undefined
  #reason: unknown
  #aborted = false
  #listener: ((reason: unknown) => void) | undefined
  #outer: CallerSignal | undefined
  #forward: (() => void) | undefined

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

  /** Cancel with the outer signal (e.g. the HTTP client went away), until `release`. */
  follow(outer: CallerSignal | undefined): void {
    if (!outer) return
    const forward = () => this.abort(outer.reason)
    if (outer.aborted) return forward()
    this.#outer = outer
    this.#forward = forward
    outer.addEventListener('abort', forward, { once: true })
  }

  /** The call is over: the outer signal no longer reaches it. */
  release(): void {
    if (this.#forward) this.#outer!.removeEventListener('abort', this.#forward)
  }

  abort(reason: unknown): void {
    if (this.#aborted) return
    this.#aborted = true
    this.#reason = reason
    this.#controller?.abort(reason)
    this.#listener?.(reason)
  }

  /** The value (a skill may answer synchronously) or its promise's outcome, or a rejection with the reason as soon as the call is cancelled. */
  race<T>(value: T | PromiseLike<T>): Promise<T> {
    if (!isThenable(value)) return this.#aborted ? Promise.reject(this.#reason) : Promise.resolve(value)
    const promise = Promise.resolve(value)
    // An executor that fails after the cancel won the race must not become an unhandled rejection.
    promise.catch(() => {})
    if (this.#aborted) return Promise.reject(this.#reason)
    return new Promise<T>((resolve, reject) => {
      this.#listener = reject
      promise.then(
        (result) => {
          this.#listener = undefined
          resolve(result)
        },
        (error) => {
          this.#listener = undefined
          reject(error)
        },
      )
    })
  }
}

function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function'
}
