/** A run that can't start or go on, with a message that says why (a missing key, an unknown agent). */
export class RunError extends Error {
  constructor(
    message: string,
    readonly status: 400 | 404 | 409 = 400,
  ) {
    super(message)
    this.name = 'RunError'
  }
}
