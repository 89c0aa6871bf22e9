import { createHash, randomBytes } from 'node:crypto'
import { ulid } from 'ulid'
import type { KeyRepository, KeyRow } from '../store/index.js'
import type { Caller, CallerRole } from '../skill/index.js'

export type KeyRole = CallerRole | 'agent'
const PREFIX = 'sp_'

export interface CreatedKey {
  id: string
  name: string
  role: KeyRole
  agentId: string | null
  /** The secret itself: shown once, never stored. */
  key: string
}

export interface KeyInfo {
  id: string
  name: string
  role: KeyRole
  agentId: string | null
  createdAt: string
  revokedAt: string | null
}

// Keys are 256 random bits, so a fast hash is enough: there is nothing to brute-force.
export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex')
}

// Authenticated keys are remembered this long, so a busy key costs one query a second; a revocation
// made by this process takes effect at once, one made by another process (a peer manager, the CLI)
// within this time, on either database, with no notification that could be missed.
const CACHE_MS = 1_000
const CACHE_MAX = 10_000

export class ApiKeys {
  readonly #cache = new Map<string, { caller: Caller; until: number }>()

  constructor(private readonly repo: KeyRepository) {}

  async create(input: { name: string; role: KeyRole; agentId?: string | null }, now: string): Promise<CreatedKey> {
    const key = PREFIX + randomBytes(32).toString('base64url')
    const row: KeyRow = {
      id: ulid(),
      name: input.name,
      role: input.role,
      agent_id: input.agentId ?? null,
      key_hash: hashKey(key),
      created_at: now,
      revoked_at: null,
    }
    await this.repo.insert(row)
    return { id: row.id, name: row.name, role: input.role, agentId: row.agent_id, key }
  }

  /** The caller a bearer key stands for, or null for an unknown or revoked key. */
  async authenticate(key: string): Promise<Caller | null> {
    if (!key.startsWith(PREFIX) || key.length > 200) return null
    const cached = this.#cache.get(key)
    if (cached && cached.until > Date.now()) return cached.caller
    const row = await this.repo.findActiveByHash(hashKey(key))
    if (!row) {
      this.#cache.delete(key)
      return null
    }
    const caller: Caller =
      row.role === 'agent'
        ? { kind: 'agent', id: row.id, name: row.name, agentId: row.agent_id ?? '' }
        : { kind: 'user', id: row.id, name: row.name, role: row.role as CallerRole }
    if (this.#cache.size >= CACHE_MAX) this.#cache.clear()
    this.#cache.set(key, { caller, until: Date.now() + CACHE_MS })
    return caller
  }

  /** The caller an active key (by id or name) stands for, without its secret. */
  async callerFor(idOrName: string): Promise<Caller | null> {
    const row = (await this.repo.list()).find((r) => r.revoked_at === null && (r.id === idOrName || r.name === idOrName))
    if (!row) return null
    return row.role === 'agent'
      ? { kind: 'agent', id: row.id, name: row.name, agentId: row.agent_id ?? '' }
      : { kind: 'user', id: row.id, name: row.name, role: row.role as CallerRole }
  }

  async list(): Promise<KeyInfo[]> {
    return (await this.repo.list()).map((r) => ({
      id: r.id,
      name: r.name,
      role: r.role as KeyRole,
      agentId: r.agent_id,
      createdAt: r.created_at,
      revokedAt: r.revoked_at,
    }))
  }

  /** Revoke by id or name; returns how many keys were revoked. */
  async revoke(idOrName: string, now: string): Promise<number> {
    const revoked = await this.repo.revoke(idOrName, now)
    this.#cache.clear()
    return revoked
  }

  count(): Promise<number> {
    return this.repo.count()
  }
}
