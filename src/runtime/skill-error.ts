import type { ErrorCode } from '../skill/index.js'

export type SkillErrorCode = Extract<ErrorCode, 'invalid_input' | 'not_found' | 'denied' | 'unavailable' | 'needs_auth'>

// A registry-wide brand, like defineSkill's: two copies of the package still recognise each other.
const BRAND = Symbol.for('skillplane.skill-error')

/**
 * Thrown by an executor to refuse a call with a specific code (a path outside a folder is
 * invalid_input, not a server failure); any other throw is executor_error.
 */
export class SkillError extends Error {
  override name = 'SkillError'
  readonly [BRAND] = true

  constructor(
    readonly code: SkillErrorCode,
    message: string,
  ) {
    super(message)
  }
}

export function isSkillError(error: unknown): error is SkillError {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[BRAND] === true
}
