import type { MemoryRepository, MemoryKeyRow } from '../store/index.js'
import type { MemoryKeyInfo, SkillMemory } from '../skill/index.js'
import { MemoryError } from './memory-error.js'
import { DEFAULT_POOL, MEMORY_LIMITS, POOL_NAME, type MemorySizeLimits } from './memory-limits.js'

export interface MemoryDeps {
  repo: MemoryRepository
  /** The time TTLs are measured against (tests pass a fake). */
  clock: () => Date
  limits: MemorySizeLimits
}

/** Shared memory as the plane's API offers it: a skill's view, acting as someone, and the sweep. */
export interface SharedMemory extends SkillMemory {
  /** The same operations, writes recorded as made by `actor` (a skill's caller). */
  as(actor: string): SkillMemory
  /** Delete every expired entry now; returns how many. The heartbeat does this every minute. */
  sweep(): Promise<number>
}

// Each manager sweeps at most this often; reads already hide expired entries.
const SWEEP_EVERY_MS = 60_000

/**
 * One shared memory per store: skillplane serves one organisation per database, so every skill,
 * agent and run of the store reads the same pools. Values are JSON, capped in size; an expired
 * entry is gone for every read at once and deleted by the next sweep.
 */
export class Memory implements SharedMemory {
  readonly #deps: MemoryDeps
  #sweptAt = 0

  constructor(deps: MemoryDeps) {
    this.#deps = deps
  }

  get(key: string, options?: { pool?: string }): Promise<unknown> {
    return this.as('library').get(key, options)
  }

  set(key: string, value: unknown, options?: { pool?: string; ttlSeconds?: number }) {
    return this.as('library').set(key, value, options)
  }

  delete(key: string, options?: { pool?: string }): Promise<boolean> {
    return this.as('library').delete(key, options)
  }

  list(prefix?: string, options?: { pool?: string; limit?: number }): Promise<MemoryKeyInfo[]> {
    return this.as('library').list(prefix, options)
  }

  as(actor: string): SkillMemory {
    const { repo, limits } = this.#deps
    const now = () => this.#deps.clock()
    return {
      get: async (key, options) => {
        const row = await repo.get(poolOf(options), checkKey(key), now().toISOString())
        return row === undefined ? undefined : JSON.parse(row.value)
      },
      set: async (key, value, options) => {
        const pool = poolOf(options)
        checkKey(key)
        const text = serialize(key, value)
        const bytes = Buffer.byteLength(text)
        if (bytes > limits.maxValueBytes)
          throw new MemoryError(`the value of "${key}" is ${bytes} bytes of JSON; the most is ${limits.maxValueBytes} (memory.maxValueBytes)`)
        const at = now()
        const ttl = options?.ttlSeconds
        if (ttl !== undefined && (!Number.isInteger(ttl) || ttl < 1 || ttl > MEMORY_LIMITS.ttlSeconds)) {
          throw new MemoryError(`ttlSeconds must be a whole number of seconds from 1 to ${MEMORY_LIMITS.ttlSeconds} (a year); got ${JSON.stringify(ttl)}`)
        }
        const expiresAt = ttl === undefined ? null : new Date(at.getTime() + ttl * 1000).toISOString()
        const stored = await repo.put(
          { pool, key, value: text, bytes, expires_at: expiresAt, updated_at: at.toISOString(), updated_by: actor },
          { maxEntries: limits.maxEntriesPerPool, maxPools: limits.maxPools },
          at.toISOString(),
        )
        if (stored === 'pool_full')
          throw new MemoryError(
            `memory pool "${pool}" is full (${limits.maxEntriesPerPool} entries, memory.maxEntriesPerPool): delete entries or use another pool`,
          )
        if (stored === 'too_many_pools')
          throw new MemoryError(`memory already holds ${limits.maxPools} pools (memory.maxPools): use one of them, or empty one first`)
        return { key, pool, bytes, expiresAt }
      },
      delete: async (key, options) => repo.delete(poolOf(options), checkKey(key), now().toISOString()),
      list: async (prefix = '', options) => {
        if (typeof prefix !== 'string' || prefix.length > MEMORY_LIMITS.keyLength) {
          throw new MemoryError(`a prefix is a string of at most ${MEMORY_LIMITS.keyLength} characters`)
        }
        const limit = options?.limit ?? 100
        if (!Number.isInteger(limit) || limit < 1 || limit > MEMORY_LIMITS.listLimit)
          throw new MemoryError(`limit must be from 1 to ${MEMORY_LIMITS.listLimit}`)
        return (await repo.list(poolOf(options), prefix, now().toISOString(), limit)).map(keyInfo)
      },
    }
  }

  sweep(): Promise<number> {
    this.#sweptAt = Date.now()
    return this.#deps.repo.sweep(this.#deps.clock().toISOString())
  }

  /** The heartbeat's sweep: at most once a minute per manager. */
  async sweepDue(): Promise<void> {
    if (Date.now() - this.#sweptAt >= SWEEP_EVERY_MS) await this.sweep()
  }
}

function poolOf(options: { pool?: string } | undefined): string {
  const pool = options?.pool ?? DEFAULT_POOL
  if (typeof pool !== 'string' || !POOL_NAME.test(pool)) {
    throw new MemoryError(`memory pool ${JSON.stringify(pool)} is not valid: lowercase letters, digits, _ - and ., up to 64, starting with a letter or digit`)
  }
  return pool
}

function checkKey(key: unknown): string {
  if (typeof key !== 'string' || key === '') throw new MemoryError(`a memory key is a non-empty string; got ${JSON.stringify(key) ?? String(key)}`)
  if (key.length > MEMORY_LIMITS.keyLength)
    throw new MemoryError(`memory key "${key.slice(0, 40)}…" is ${key.length} characters; the most is ${MEMORY_LIMITS.keyLength}`)
  // eslint-disable-next-line no-control-regex -- control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(key)) throw new MemoryError(`memory key ${JSON.stringify(key)} contains control characters`)
  return key
}

function serialize(key: string, value: unknown): string {
  let text: string | undefined
  try {
    text = JSON.stringify(value)
  } catch (error) {
    throw new MemoryError(`the value of "${key}" is not JSON: ${(error as Error).message}`)
  }
  if (text === undefined)
    throw new MemoryError(`the value of "${key}" is not JSON (${value === undefined ? 'undefined' : typeof value}); delete the key to remove it`)
  return text
}

function keyInfo(row: MemoryKeyRow): MemoryKeyInfo {
  return { key: row.key, bytes: Number(row.bytes), expiresAt: row.expires_at, updatedAt: row.updated_at, updatedBy: row.updated_by }
}
