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

/** Run work, turning errors of these kinds (the user's to fix) into one-line CliErrors. */
export async function asCliError<T>(kinds: ReadonlyArray<abstract new (...args: never[]) => Error>, work: () => T | Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    if (kinds.some((kind) => error instanceof kind)) throw new CliError((error as Error).message)
    throw error
  }
}
