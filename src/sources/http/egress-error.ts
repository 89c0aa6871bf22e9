import { SkillplaneError } from '../../errors/index.js'

/** A call refused or failed under a source's egress rules; the pipeline reports it as executor_error. */
export class EgressError extends SkillplaneError {
  override readonly code = 'executor_error'
  override name = 'EgressError'
}
