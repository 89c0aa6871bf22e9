import { SkillplaneError } from '../errors/index.js'

/** A skill definition that can't be registered: bad key, clash, unconvertible schema. */
export class DefinitionError extends SkillplaneError {
  override readonly code = 'invalid_input'
  override name = 'DefinitionError'
}
