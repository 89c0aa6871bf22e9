import { SkillplaneError } from '../errors/index.js'

/** Abort reasons the pipeline gives its executors' signals, so it can tell why a call stopped. */
export class DeadlineExceeded extends SkillplaneError {
  override readonly code = 'timeout'
  override name = 'TimeoutError'
  constructor(readonly timeoutMs: number) {
    super(`the call exceeded its ${timeoutMs} ms deadline`)
  }
}

export class ShuttingDown extends SkillplaneError {
  override readonly code = 'unavailable'
  override name = 'AbortError'
  constructor() {
    super('the call was interrupted: skillplane is shutting down')
  }
}
