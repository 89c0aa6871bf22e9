import type { SkillErrorCode } from '../runtime/index.js'
import { SkillplaneError } from '../errors/index.js'

/** What went wrong, as the codes every surface already maps: the caller's input, an unknown agent, or the server's own setup. */
export type RunErrorCode = Extract<SkillErrorCode, 'invalid_input' | 'not_found' | 'unavailable'>

/** A run that can't start or go on, with a message that says why (a missing key, an unknown agent). */
export class RunError extends SkillplaneError {
  override name = 'RunError'
  constructor(
    message: string,
    override readonly code: RunErrorCode = 'invalid_input',
  ) {
    super(message)
  }
}
