import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

const PREFIX = 'spe_'
const ID = /^[0-9A-HJKMNP-TV-Z]{26}$/

/** A new token for an edge, its lasting credential: it names the edge's id, so the token alone fixes who it is. */
export function newEdgeToken(edgeId: string): string {
  return `${PREFIX}${edgeId}_${randomBytes(32).toString('base64url')}`
}

// 256 random bits: a fast hash is enough, there is nothing to brute-force.
export function hashEdgeToken(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}

/** The edge id a token claims, or null for something that is not an edge token. */
export function edgeIdOf(token: string): string | null {
  if (!token.startsWith(PREFIX) || token.length > 120) return null
  const id = token.slice(PREFIX.length, PREFIX.length + 26)
  return ID.test(id) && token[PREFIX.length + 26] === '_' ? id : null
}

/** Whether the token hashes to the stored hash, compared in constant time. */
export function tokenMatches(token: string, storedHash: string): boolean {
  const a = Buffer.from(hashEdgeToken(token), 'hex')
  const b = Buffer.from(storedHash, 'hex')
  return a.length === b.length && timingSafeEqual(a, b)
}

const LIFETIME = /^(\d{1,5})([hd])$/
const HOUR_MS = 60 * 60 * 1000
const MAX_LIFETIME_MS = 3650 * 24 * HOUR_MS

/** When a token issued at `now` for `lifetime` ("12h", "90d") expires: null for no lifetime, or why the lifetime is refused. */
export function tokenExpiry(lifetime: string | undefined, now: string): { ok: true; expiresAt: string | null } | { ok: false; message: string } {
  if (lifetime === undefined) return { ok: true, expiresAt: null }
  const match = LIFETIME.exec(lifetime.trim())
  const ms = match ? Number(match[1]) * (match[2] === 'd' ? 24 : 1) * HOUR_MS : NaN
  if (!(ms >= HOUR_MS && ms <= MAX_LIFETIME_MS))
    return { ok: false, message: `expiresIn: "${lifetime.slice(0, 40)}" is not a lifetime: hours or days, e.g. 12h or 90d (1h to 3650d)` }
  return { ok: true, expiresAt: new Date(Date.parse(now) + ms).toISOString() }
}
