import type { ResolvedOidc } from '../config/index.js'
import type { CallerRole } from '../skill/index.js'
import { ROLES } from '../abilities/index.js'

// The first role granted wins, so the highest is looked for first.
const HIGHEST_FIRST: readonly CallerRole[] = [...ROLES].reverse()

/** The highest role a person's groups (or role claim) grant through `auth.oidc.roles`, if any. */
export function roleFor(claims: Record<string, unknown>, oidc: ResolvedOidc): CallerRole | undefined {
  const groups = new Set(strings(claims[oidc.groupsClaim]))
  const named = new Set(oidc.roleClaim === undefined ? [] : strings(claims[oidc.roleClaim]))
  return HIGHEST_FIRST.find((r) => named.has(r) || oidc.roles[r].some((group) => groups.has(group)))
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

export function firstString(...values: unknown[]): string | undefined {
  return values.find((v): v is string => typeof v === 'string' && v.length > 0)
}
