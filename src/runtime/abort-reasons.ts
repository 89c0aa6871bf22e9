/** Abort reasons the pipeline gives its executors' signals, so it can tell why a call stopped. */
export class DeadlineExceeded extends Error {
  override name = 'TimeoutError'
  constructor(readonly timeoutMs: number) {
    super(`the call exceeded its ${timeoutMs} ms deadline`)
  }
}

export class ShuttingDown extends Error {
  override name = 'AbortError'
  constructor() {
    super('the call was interrupted: skillplane is shutting down')
  }
}

/** Resolve or reject with the promise, or reject with the signal's reason as soon as it aborts. */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  // An executor that fails after the abort won the race must not become an unhandled rejection.
  promise.catch(() => {})
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}
