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
    this.#listener?.(reason)
  }

  /** Resolve or reject with the promise, or reject with the reason as soon as the call is cancelled. */
  race<T>(promise: Promise<T>): Promise<T> {
    // An executor that fails after the cancel won the race must not become an unhandled rejection.
    promise.catch(() => {})
    if (this.#aborted) return Promise.reject(this.#reason)
    return new Promise<T>((resolve, reject) => {
      this.#listener = reject
      promise.then(
        (value) => {
          this.#listener = undefined
          resolve(value)
        },
        (error) => {
          this.#listener = undefined
          reject(error)
        },
      )
    })
  }
}
