import { ApiError, authHeaders, keyRefused } from './client'

// TEMPORARY (until the core's routes land on main): the contract's shapes, written by hand. After
// the merge these come from the generated schema and the calls go through `api`.
export interface OAuthProviderInfo {
  name: string
  title: string
  defaultScopes: string[]
}
export interface ConnectionInfo {
  provider: string
  title: string
  account: 'person' | 'service'
  subject: string | null
  state: 'ready' | 'needs_auth'
  scopes: string[]
  missingScopes: string[]
  expiresAt: string | null
  connectedAt: string
  updatedAt: string
  reason: string | null
}
export interface ConnectionList {
  providers: OAuthProviderInfo[]
  connections: ConnectionInfo[]
}
export type Account = ConnectionInfo['account']

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method,
    headers: { ...authHeaders(method), ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  if (response.status === 401) keyRefused()
  const answer = (await response.json().catch(() => ({}))) as { error?: { code?: string; message?: string; details?: Record<string, unknown> } }
  if (response.ok) return answer as T
  throw new ApiError(response.status, answer.error?.code ?? 'http_' + response.status, answer.error?.message ?? response.statusText, answer.error?.details)
}

/** The providers and the caller's own and the service connections; `all` (admins): everyone's. */
export const listConnections = (all = false): Promise<ConnectionList> => call('GET', `/api/connections${all ? '?all=true' : ''}`)

/** The link that starts the provider's consent for the caller (or the service account), coming back to `returnTo`. */
export const authorizeConnection = (
  provider: string,
  body: { scopes?: string[]; account?: Account; returnTo?: string },
): Promise<{ authorizationUrl: string }> => call('POST', `/api/connections/${encodeURIComponent(provider)}/authorize`, body)

/** Disconnect the caller's own connection, the service one, or (admins) a named person's. */
export const disconnectConnection = (provider: string, owner: { account?: Account; user?: string } = {}): Promise<unknown> => {
  const query = new URLSearchParams({ ...(owner.account === 'service' && { account: 'service' }), ...(owner.user && { user: owner.user }) }).toString()
  return call('DELETE', `/api/connections/${encodeURIComponent(provider)}${query ? `?${query}` : ''}`)
}
