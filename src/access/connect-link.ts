import type { Envelope } from '../skill/index.js'

/** Where the person who must connect an account goes, and the provider it connects. */
export interface ConnectLink {
  /** The configured OAuth provider's name. */
  provider: string
  /** skillplane's link that starts the authorization for that person and provider. */
  url: string
}

/**
 * The link a `needs_auth` refusal names when a person can connect the account themselves (an
 * OAuth provider); none for a static secret, which only an admin can set.
 */
export function connectLink(envelope: Envelope): ConnectLink | undefined {
  if (envelope.ok || envelope.error.code !== 'needs_auth') return undefined
  const details = envelope.error.details
  const url = details?.authorizationUrl
  const provider = (details?.oauth as { provider?: unknown } | undefined)?.provider
  return typeof url === 'string' && typeof provider === 'string' ? { provider, url } : undefined
}
