import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

const PREFIX = 'spe_'
const ID = /^[0-9A-HJKMNP-TV-Z]{26}$/

/** A new enrollment token for an edge: it names the edge's id, so the token alone fixes who it is. */
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
