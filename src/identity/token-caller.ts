import type { JWTPayload } from 'jose'
import type { ResolvedOidc } from '../config/index.js'
import type { Caller } from '../skill/index.js'
import type { Users } from '../accounts/index.js'
import { firstString, noRoleReason } from './claims.js'
import { providerUser } from './provider-user.js'
import { InvalidTokenError, TokenRefusedError } from './token-errors.js'

/** What tokenCaller needs of the rest of skillplane. */
export interface TokenCallerContext {
  /** Agent id for a name or alias, or undefined when there is no such agent. */
  resolveAgent(label: string): string | undefined
  users: Pick<Users, 'fromProvider' | 'grantedRole'>
}

/**
 * The caller a verified access token stands for: `sub` is a user (made at first sight, its role
 * following the groups or role claim through `auth.oidc.roles`, plus skillplane's own groups); a
 * token whose agent claim names an agent acts for that agent. The one place that maps token
 * claims to a caller.
 */
export async function tokenCaller(claims: JWTPayload, oidc: ResolvedOidc, context: TokenCallerContext): Promise<Caller> {
  const { user, role } = await providerUser(claims, oidc, context.users)
  if (user.disabled_at !== null) throw new InvalidTokenError(`user "${user.name}" is disabled`)
  const identity = { displayName: user.display_name ?? user.name, auth: 'token' as const }
  // Acting for an agent is granted to someone skillplane knows: the token's user needs a role of their own too.
  if (!role) throw new TokenRefusedError(`${identity.displayName} has no skillplane role: ${noRoleReason(oidc)}`)
  if (oidc.agentClaim !== undefined && claims[oidc.agentClaim] !== undefined) {
    const label = firstString(claims[oidc.agentClaim])
    const agentId = label === undefined ? undefined : context.resolveAgent(label)
    if (agentId === undefined) throw new TokenRefusedError(`the token's ${oidc.agentClaim} claim names no agent skillplane knows`)
    return { kind: 'agent', id: user.id, name: user.name, agentId, userId: user.id, ...identity }
  }
  return { kind: 'user', id: user.id, name: user.name, role, ...identity }
}
