import { randomBytes } from 'node:crypto'
import { ulid } from 'ulid'
import type { SessionRepository } from '../store/index.js'
import type { Caller } from '../skill/index.js'
import { hashKey } from './api-keys.js'
import { effectiveRole } from './effective-role.js'
import type { Users } from './users.js'

/** How long a console session lasts after sign-in; then the person signs in again. */
export const SESSION_HOURS = 8
/** How long a sign-in at the identity provider may take. */
const SIGN_IN_MINUTES = 10
// As for keys: a disabled user or a changed role made by this process takes effect at once, by another within this time.
const CACHE_MS = 1_000
const CACHE_MAX = 10_000

const random = () => randomBytes(32).toString('base64url')

export interface OpenedSession {
  /** The cookie's value: shown to the browser once, stored hashed. */
  token: string
  csrfToken: string
  expiresAt: string
}

/** A session's caller and the token every change through it must carry (CSRF). */
export interface SessionCaller {
  caller: Caller
  csrfToken: string
}

/** Console sessions opened by a sign-in at the identity provider, and the sign-ins in progress. */
export class Sessions {
  readonly #cache = new Map<string, { found: SessionCaller | null; until: number }>()

  constructor(
    private readonly repo: SessionRepository,
    private readonly users: Users,
    private readonly now: () => string,
  ) {}

  /** Remember a sign-in's checks under its state until its callback takes them. */
  async startSignIn(checks: { state: string; codeVerifier: string; nonce: string }, returnTo: string): Promise<void> {
    const now = this.now()
    await this.repo.startSignIn({
      state_hash: hashKey(checks.state),
      code_verifier: checks.codeVerifier,
      nonce: checks.nonce,
      return_to: returnTo,
      created_at: now,
      expires_at: new Date(Date.parse(now) + SIGN_IN_MINUTES * 60_000).toISOString(),
    })
  }

  /** A sign-in's checks, once: null for an unknown, expired or already used state. */
  async takeSignIn(state: string): Promise<{ state: string; codeVerifier: string; nonce: string; returnTo: string } | null> {
    const row = await this.repo.takeSignIn(hashKey(state), this.now())
    return row ? { state, codeVerifier: row.code_verifier, nonce: row.nonce, returnTo: row.return_to } : null
  }

  async open(userId: string): Promise<OpenedSession> {
    const now = this.now()
    const token = random()
    const csrfToken = random()
    const expiresAt = new Date(Date.parse(now) + SESSION_HOURS * 3_600_000).toISOString()
    await this.repo.insert({
      id: ulid(),
      token_hash: hashKey(token),
      user_id: userId,
      csrf_token: csrfToken,
      created_at: now,
      expires_at: expiresAt,
      revoked_at: null,
    })
    await this.repo.prune(new Date(Date.parse(now) - 86_400_000).toISOString())
    return { token, csrfToken, expiresAt }
  }

  /** The caller of a live session whose user is enabled; null otherwise. */
  async authenticate(token: string): Promise<SessionCaller | null> {
    if (token.length > 200) return null
    const cached = this.#cache.get(token)
    if (cached && cached.until > Date.now()) return cached.found
    const found = await this.#lookup(token)
    if (this.#cache.size >= CACHE_MAX) this.#cache.clear()
    this.#cache.set(token, { found, until: Date.now() + CACHE_MS })
    return found
  }

  async close(token: string): Promise<void> {
    this.#cache.delete(token)
    await this.repo.revoke(hashKey(token), this.now())
  }

  /** End every session of a user (disabled): enabling them again does not bring the sessions back. */
  async closeForUser(userId: string): Promise<number> {
    this.#cache.clear()
    return this.repo.revokeForUser(userId, this.now())
  }

  /** Forget what was remembered: who a session stands for changed. */
  forget(): void {
    this.#cache.clear()
  }

  async #lookup(token: string): Promise<SessionCaller | null> {
    const row = await this.repo.findLive(hashKey(token), this.now())
    if (!row) return null
    const user = await this.users.rowById(row.user_id)
    if (!user || user.disabled_at !== null) return null
    // A session has no role of its own: the user's and their groups' roles decide; none left ends it, as sign-in would refuse.
    const granted = await this.users.grantedRole(user.id)
    if (granted === null) return null
    const role = effectiveRole(null, granted)
    const caller: Caller = { kind: 'user', id: user.id, name: user.name, role, displayName: user.display_name ?? user.name, auth: 'session' }
    return { caller, csrfToken: row.csrf_token }
  }
}
