/** An error the CLI reports as one line with a non-zero exit, without a stack. */
export class CliError extends Error {
  override name = 'CliError'
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message)
  }
}
