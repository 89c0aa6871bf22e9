import { SkillplaneError } from '../errors/index.js'

/** A user, group or key operation refused: what is wrong, with the code the HTTP API answers. */
export class AccountError extends SkillplaneError {
  override readonly name = 'AccountError'
  constructor(
    override readonly code: 'invalid_input' | 'not_found' | 'conflict',
    message: string,
  ) {
    super(message)
  }
}
