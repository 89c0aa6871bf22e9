import type { JWTPayload } from 'jose'
import type { ResolvedOidc } from '../config/index.js'
import type { Caller, CallerRole } from '../skill/index.js'
import { TokenRefusedError } from './token-errors.js'

const ROLES: CallerRole[] = ['admin', 'operator', 'viewer']

/** What tokenCaller needs of the rest of skillplane. */
export interface TokenCallerContext {
  /** Agent id for a name or alias, or undefined when there is no such agent. */
  resolveAgent(label: string): string | undefined
}

/**
 * The caller a verified access token stands for: `sub` is the user; the role is the highest one its
 * groups (or role claim) grant through `auth.oidc.roles`; a token whose agent claim names an agent acts
 * for that agent. The one place that maps token claims to a caller.
 */
export function tokenCaller(claims: JWTPayload, oidc: ResolvedOidc, context: TokenCallerContext): Caller {
  const sub = claims.sub!
  const id = `oidc:${sub}`
  const name = displayName(claims)
  if (oidc.agentClaim !== undefined && claims[oidc.agentClaim] !== undefined) {
    const label = firstString(claims[oidc.agentClaim])
    const agentId = label === undefined ? undefined : context.resolveAgent(label)
    if (agentId === undefined) throw new TokenRefusedError(`the token's ${oidc.agentClaim} claim names no agent skillplane knows`)
    return { kind: 'agent', id, name, agentId }
  }
  const role = roleFor(claims, oidc)
  if (!role) throw new TokenRefusedError(`${name} has no skillplane role: ${noRoleReason(oidc)}`)
  return { kind: 'user', id, name, role }
}

/** The highest role a person's groups (or role claim) grant through `auth.oidc.roles`, if any. */
export function roleFor(claims: Record<string, unknown>, oidc: ResolvedOidc): CallerRole | undefined {
  const groups = new Set(strings(claims[oidc.groupsClaim]))
  const named = new Set(oidc.roleClaim === undefined ? [] : strings(claims[oidc.roleClaim]))
  return ROLES.find((r) => named.has(r) || oidc.roles[r].some((group) => groups.has(group)))
}

/** Why roleFor found no role, in the config's terms. */
export function noRoleReason(oidc: ResolvedOidc): string {
  return oidc.roleClaim === undefined
    ? `its ${oidc.groupsClaim} claim names no group of auth.oidc.roles`
    : `neither its ${oidc.groupsClaim} claim nor its ${oidc.roleClaim} claim grants one`
}

/** The name to show for a person: their name, else username, else email, else the subject. */
export function displayName(claims: Record<string, unknown>): string {
  return firstString(claims.name, claims.preferred_username, claims.email) ?? String(claims.sub)
}

// A claim may hold one string or a list of them.
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value]
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []
}

function firstString(...values: unknown[]): string | undefined {
  return values.find((v): v is string => typeof v === 'string' && v.length > 0)
}
