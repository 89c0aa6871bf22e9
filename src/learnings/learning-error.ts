import { SkillplaneError } from '../errors/index.js'

/** A learning refused: a bad category, title, content, tag or importance. The message names which. */
export class LearningError extends SkillplaneError {
  override readonly code = 'invalid_input'
  override name = 'LearningError'
}
