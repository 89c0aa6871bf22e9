import type { ErrorCode } from './error-code.js'

const MARKER = 'skillplane.error'
// A registry-wide symbol: errors from another copy of the package (src and dist in one process) are still recognised.
const SYMBOL = Symbol.for(MARKER)

/**
 * The base of every error skillplane throws on purpose. `code` is what a caller receives when the
 * error reaches a surface (and so its HTTP status); anything else that escapes is `internal`.
 */
export abstract class SkillplaneError extends Error {
  readonly [SYMBOL] = true
  abstract readonly code: ErrorCode

  /** Whether `value` is a SkillplaneError, from this copy of the package or another. */
  static isInstance(value: unknown): value is SkillplaneError {
    return SkillplaneError.hasMarker(value, MARKER)
  }

  /** For a subclass's own isInstance: whether `value` carries the `Symbol.for(marker)` brand. */
  protected static hasMarker(value: unknown, marker: string): boolean {
    const symbol = Symbol.for(marker)
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[symbol] === true
  }
}
