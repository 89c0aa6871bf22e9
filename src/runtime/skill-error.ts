import type { ErrorCode } from '../errors/index.js'
import { SkillplaneError } from '../errors/index.js'

export type SkillErrorCode = Extract<ErrorCode, 'invalid_input' | 'not_found' | 'denied' | 'unavailable' | 'needs_auth' | 'unsupported'>

// Its own brand too, like defineSkill's: an executor from another copy of the package is still recognised.
const MARKER = 'skillplane.skill-error'
const SYMBOL = Symbol.for(MARKER)

/**
 * Thrown by an executor to refuse a call with a specific code (a path outside a folder is
 * invalid_input, not a server failure); any other throw is executor_error.
 */
export class SkillError extends SkillplaneError {
  override name = 'SkillError'
  readonly [SYMBOL] = true

  constructor(
    override readonly code: SkillErrorCode,
    message: string,
  ) {
    super(message)
  }

  static override isInstance(value: unknown): value is SkillError {
    return SkillplaneError.hasMarker(value, MARKER)
  }
}

export function isSkillError(error: unknown): error is SkillError {
  return SkillError.isInstance(error)
}
