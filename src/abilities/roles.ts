import type { CallerRole } from '../skill/index.js'

/** The roles of a person, lowest first: each holds every ability of the ones before it. */
export const ROLES = ['viewer', 'operator', 'admin'] as const satisfies readonly CallerRole[]

export function isRole(value: unknown): value is CallerRole {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value)
}

/** Whether `role` ranks at or above `minimum`; an unknown role ranks below every role. */
export function roleAtLeast(role: string, minimum: CallerRole): boolean {
  return (ROLES as readonly string[]).indexOf(role) >= ROLES.indexOf(minimum)
}

/** The highest of some roles (unknown names ignored); null for none. */
export function highestRole(roles: readonly string[]): CallerRole | null {
  let best: CallerRole | null = null
  for (const role of roles) if (isRole(role) && (best === null || roleAtLeast(role, best))) best = role
  return best
}

/** The lower of two roles. */
export function lowerRole(a: CallerRole, b: CallerRole): CallerRole {
  return roleAtLeast(b, a) ? a : b
}
