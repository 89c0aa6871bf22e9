import { createHash, randomBytes } from 'node:crypto'
import { ulid } from 'ulid'
import type { KeyRepository, KeyRow } from '../store/key-repository.js'
import type { Caller, CallerRole } from '../skill/skill-types.js'

export type KeyRole = CallerRole | 'agent'
export const KEY_ROLES: readonly KeyRole[] = ['viewer', 'operator', 'admin', 'agent']
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

export class ApiKeys {
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
    const row = await this.repo.findActiveByHash(hashKey(key))
    if (!row) return null
    if (row.role === 'agent') return { kind: 'agent', id: row.id, name: row.name, agentId: row.agent_id ?? '' }
    return { kind: 'user', id: row.id, name: row.name, role: row.role as CallerRole }
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
  revoke(idOrName: string, now: string): Promise<number> {
    return this.repo.revoke(idOrName, now)
  }

  count(): Promise<number> {
    return this.repo.count()
  }
}
