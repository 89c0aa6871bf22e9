/** A user, group or key operation refused: what is wrong, with the code the HTTP API answers. */
export class IdentityError extends Error {
  override readonly name = 'IdentityError'
  constructor(
    readonly code: 'invalid_input' | 'not_found' | 'conflict',
    message: string,
  ) {
    super(message)
  }
}
