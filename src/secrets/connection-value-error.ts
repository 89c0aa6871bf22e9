/** A secret or setting that can't be stored as given (a bad name, an empty or oversized value, an unknown agent). */
export class ConnectionValueError extends Error {
  override readonly name = 'ConnectionValueError'
}
