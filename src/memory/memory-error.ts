/** A memory operation refused: a bad key, pool, value or TTL, or a full pool. The message names which. */
export class MemoryError extends Error {
  override name = 'MemoryError'
}
