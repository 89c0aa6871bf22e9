import type { Users } from '../accounts/index.js'
import type { ResolvedOidc } from '../config/index.js'
import type { CallerRole } from '../skill/index.js'
import type { UserRow } from '../store/index.js'
import { displayName, roleFor } from './claims.js'

/**
 * The user an identity provider's claims are (made at first sight, its role following the
 * provider's groups), and the role it acts with: the highest one granted to it or its skillplane
 * groups; null when it has none or is disabled.
 */
export async function providerUser(
  claims: Record<string, unknown>,
  oidc: ResolvedOidc,
  users: Pick<Users, 'fromProvider' | 'grantedRole'>,
): Promise<{ user: UserRow; role: CallerRole | null }> {
  const subject = String(claims.sub)
  // An e-mail address names the user only when the provider verified it.
  const email = claims.email_verified === true ? claims.email : undefined
  const name = [claims.preferred_username, email, subject].find((v): v is string => typeof v === 'string' && v.trim() !== '')!
  const user = await users.fromProvider(
    { issuer: oidc.issuer, subject, name, displayName: displayName(claims), role: roleFor(claims, oidc) ?? null },
    { id: 'identity-provider', name: `identity provider ${new URL(oidc.issuer).host}` },
  )
  return { user, role: user.disabled_at !== null ? null : await users.grantedRole(user.id) }
}
