/** The fixed caps on shared memory; the value size and the entries per pool are set in the config (`memory`). */
export const MEMORY_LIMITS = {
  /** Characters in a key. */
  keyLength: 256,
  /** The longest TTL: a year. */
  ttlSeconds: 365 * 24 * 60 * 60,
  /** Most keys one list returns. */
  listLimit: 1_000,
} as const

export const DEFAULT_POOL = 'default'
/** Pool names: lowercase letters, digits, `_`, `-` and `.`, starting with a letter or digit. */
export const POOL_NAME = /^[a-z0-9][a-z0-9_.-]{0,63}$/

/** The configurable caps (the config's `memory`). */
export interface MemorySizeLimits {
  /** Bytes of a value's JSON text (UTF-8). */
  maxValueBytes: number
  /** Live entries in one pool. */
  maxEntriesPerPool: number
  /** Pools holding live entries: with the two caps above, the whole memory is bounded. */
  maxPools: number
}
