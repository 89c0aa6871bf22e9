import { SkillplaneError } from '../../errors/index.js'

/** An error the CLI reports as one line with a non-zero exit, without a stack. */
export class CliError extends SkillplaneError {
  override readonly code = 'invalid_input'
  override name = 'CliError'
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message)
  }
}
