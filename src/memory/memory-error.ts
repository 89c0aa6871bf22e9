import { SkillplaneError } from '../errors/index.js'

/** A memory operation refused: a bad key, pool, value or TTL, or a full pool. The message names which. */
export class MemoryError extends SkillplaneError {
  override readonly code = 'invalid_input'
  override name = 'MemoryError'
}
