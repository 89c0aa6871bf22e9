import type { CallerRole } from '../skill/index.js'
// The ability table is a leaf every layer may read (.dependency-cruiser.cjs): roles are ranked there only.
import { lowerRole } from '../abilities/index.js'

/**
 * What a person acts as through one credential: the lower of the credential's own role (a key's;
 * null for one that follows its user) and the highest role granted to the user itself or any of
 * its groups. Either side unset does not limit; both unset is a viewer.
 */
export function effectiveRole(credentialRole: CallerRole | null, granted: CallerRole | null): CallerRole {
  if (credentialRole === null) return granted ?? 'viewer'
  if (granted === null) return credentialRole
  return lowerRole(credentialRole, granted)
}
