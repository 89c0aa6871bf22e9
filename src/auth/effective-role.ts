import type { CallerRole } from '../skill/index.js'

export const ROLES: readonly CallerRole[] = ['viewer', 'operator', 'admin']
const RANK: Record<CallerRole, number> = { viewer: 0, operator: 1, admin: 2 }

export function isRole(value: unknown): value is CallerRole {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value)
}

/** The highest of some roles; null for none. */
export function highestRole(roles: readonly string[]): CallerRole | null {
  let best: CallerRole | null = null
  for (const role of roles) if (isRole(role) && (best === null || RANK[role] > RANK[best])) best = role
  return best
}

/**
 * What a person acts as through one credential: the lower of the credential's own role (a key's;
 * null for one that follows its user) and the highest role granted to the user itself or any of
 * its groups. Either side unset does not limit; both unset is a viewer.
 */
export function effectiveRole(credentialRole: CallerRole | null, granted: CallerRole | null): CallerRole {
  if (credentialRole === null) return granted ?? 'viewer'
  if (granted === null) return credentialRole
  return RANK[credentialRole] <= RANK[granted] ? credentialRole : granted
}
