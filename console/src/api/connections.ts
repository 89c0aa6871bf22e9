import { api, unwrap } from './client'
import type { paths } from './schema'
import type { ConnectionInfo } from './types'

type Account = ConnectionInfo['account']
export type ConnectionList = paths['/api/connections']['get']['responses'][200]['content']['application/json']
export type OAuthProviderInfo = ConnectionList['providers'][number]

/** The providers, and the caller's own and the service connections; `all` (admins): everyone's. */
export const listConnections = (all = false): Promise<ConnectionList> => unwrap(api.GET('/api/connections', { params: { query: all ? { all: 'true' } : {} } }))

/** The link that starts the provider's consent for the caller (or the service account), coming back to `returnTo`. */
export const authorizeConnection = (provider: string, body: { scopes?: string[]; account?: Account; returnTo?: string }) =>
  unwrap(api.POST('/api/connections/{provider}/authorize', { params: { path: { provider } }, body }))

/** Disconnect the caller's own connection, the service one, or (admins) a named person's. */
export const disconnectConnection = (provider: string, owner: { account?: Account; user?: string } = {}) =>
  unwrap(
    api.DELETE('/api/connections/{provider}', {
      params: { path: { provider }, query: { ...(owner.account === 'service' && { account: 'service' as const }), ...(owner.user && { user: owner.user }) } },
    }),
  )
