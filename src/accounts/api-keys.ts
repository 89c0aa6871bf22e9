import { createHash, randomBytes } from 'node:crypto'
import { ulid } from 'ulid'
import type { KeyRepository, KeyRow, KeyWithUser } from '../store/index.js'
import type { Caller, CallerRole } from '../skill/index.js'
import { effectiveRole } from './effective-role.js'
import { highestRole } from '../abilities/index.js'
import { AccountError } from './account-error.js'
import type { ChangeActor } from './accounts-deps.js'
import type { Users } from './users.js'

export type KeyRole = CallerRole | 'agent'
const PREFIX = 'sp_'
const LIBRARY: ChangeActor = { id: 'library', name: 'library' }

export interface CreatedKey {
  id: string
  name: string
  /** null: the key follows its user's roles. */
  role: KeyRole | null
  agentId: string | null
  user: { id: string; name: string }
  /** The secret itself: shown once, never stored. */
  key: string
}

export interface KeyInfo {
  id: string
  name: string
  role: KeyRole | null
  agentId: string | null
  user: { id: string; name: string }
  createdAt: string
  revokedAt: string | null
}

// Keys are 256 random bits, so a fast hash is enough: there is nothing to brute-force.
export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex')
}

// Authenticated keys are remembered this long, so a busy key costs two queries a second; a
// revocation, a disabled user or a changed role made by this process takes effect at once, one made
// by another process (a peer manager, the CLI) within this time, on either database, with no
// notification that could be missed.
const CACHE_MS = 1_000
const CACHE_MAX = 10_000

export class ApiKeys {
  readonly #cache = new Map<string, { caller: Caller; until: number }>()
  readonly #forgotten = new Set<() => void>()

  constructor(
    private readonly repo: KeyRepository,
    private readonly users: Users,
  ) {}

  /**
   * Create a key for `user` (a user name or id that must exist), or by default for the user of the
   * key's name, made with no role when there is none. A key without a role follows its user's.
   */
  async create(
    input: { name: string; role?: KeyRole | null; agentId?: string | null; user?: string },
    now: string,
    by: ChangeActor = LIBRARY,
  ): Promise<CreatedKey> {
    const user = input.user === undefined ? await this.users.ensure(input.name, by) : await this.users.row(input.user)
    if (!user) throw new AccountError('not_found', `no user "${input.user!.slice(0, 100)}": add it with skillplane users add`)
    if (user.disabled_at !== null) throw new AccountError('conflict', `user "${user.name}" is disabled: enable it first`)
    const key = PREFIX + randomBytes(32).toString('base64url')
    const row: KeyRow = {
      id: ulid(),
      name: input.name,
      role: input.role ?? null,
      agent_id: input.agentId ?? null,
      user_id: user.id,
      key_hash: hashKey(key),
      created_at: now,
      revoked_at: null,
    }
    await this.repo.insert(row)
    return { id: row.id, name: row.name, role: input.role ?? null, agentId: row.agent_id, user: { id: user.id, name: user.name }, key }
  }

  /** The caller a bearer key stands for, or null for an unknown or revoked key, or one whose user is disabled. */
  async authenticate(key: string): Promise<Caller | null> {
    if (!key.startsWith(PREFIX) || key.length > 200) return null
    const cached = this.#cache.get(key)
    if (cached && cached.until > Date.now()) return cached.caller
    const row = await this.repo.findActiveByHash(hashKey(key))
    if (!row) {
      this.#cache.delete(key)
      return null
    }
    const caller = await this.#callerOf(row)
    if (this.#cache.size >= CACHE_MAX) this.#cache.clear()
    this.#cache.set(key, { caller, until: Date.now() + CACHE_MS })
    return caller
  }

  /**
   * Who a user (by name or id) or an active key (by id or name) is, without a secret: for rendering
   * and policy views "as" them. A user acts with the best role any of their keys gives them.
   */
  async callerFor(idOrName: string): Promise<Caller | null> {
    const user = await this.users.row(idOrName)
    const keys = (await this.repo.list()).filter((r) => r.revoked_at === null && r.user_disabled_at === null)
    if (user) {
      if (user.disabled_at !== null) return null
      const granted = await this.users.grantedRole(user.id)
      const person = keys.filter((k) => k.user_id === user.id && k.role !== 'agent')
      const role = person.length === 0 ? (granted ?? 'viewer') : highestRole(person.map((k) => effectiveRole(k.role as CallerRole | null, granted)))!
      return { kind: 'user', id: user.id, name: user.name, role, displayName: user.display_name ?? user.name }
    }
    const row = keys.find((r) => r.id === idOrName || r.name === idOrName)
    if (!row) return null
    const { auth: _auth, keyId: _keyId, ...caller } = await this.#callerOf(row)
    return caller
  }

  async list(): Promise<KeyInfo[]> {
    return (await this.repo.list()).map((r) => ({
      id: r.id,
      name: r.name,
      role: r.role as KeyRole | null,
      agentId: r.agent_id,
      user: { id: r.user_id, name: r.user_name },
      createdAt: r.created_at,
      revokedAt: r.revoked_at,
    }))
  }

  /** Revoke by id or name; returns how many keys were revoked. */
  async revoke(idOrName: string, now: string): Promise<number> {
    const revoked = await this.repo.revoke(idOrName, now)
    this.forget()
    return revoked
  }

  /** Forget every authenticated key: who a key stands for changed (a user disabled, a role granted). */
  forget(): void {
    this.#cache.clear()
    for (const listener of this.#forgotten) listener()
  }

  /** Hear every forget (a revocation, a user's change made by this process): what holds a key's standing re-checks it. */
  onForget(listener: () => void): () => void {
    this.#forgotten.add(listener)
    return () => this.#forgotten.delete(listener)
  }

  count(): Promise<number> {
    return this.repo.count()
  }

  async #callerOf(row: KeyWithUser): Promise<Caller> {
    const identity = { displayName: row.user_display_name ?? row.user_name, keyId: row.id, auth: 'key' as const }
    if (row.role === 'agent') return { kind: 'agent', id: row.id, name: row.name, agentId: row.agent_id ?? '', userId: row.user_id, ...identity }
    const role = effectiveRole(row.role as CallerRole | null, await this.users.grantedRole(row.user_id))
    return { kind: 'user', id: row.user_id, name: row.user_name, role, ...identity }
  }
}
