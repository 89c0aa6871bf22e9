import { SkillplaneError } from '../errors/index.js'

/** A secret or setting that can't be stored as given (a bad name, an empty or oversized value, an unknown agent). */
export class ConnectionValueError extends SkillplaneError {
  override readonly code = 'invalid_input'
  override readonly name = 'ConnectionValueError'
}
