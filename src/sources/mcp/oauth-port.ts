import type { OAuthFlow, TokenSet } from '../../oauth/index.js'

/** What the MCP source uses of the connections service (`plane.oauth`): its flows, people's tokens, and their connecting. */
export interface OAuthPort {
  register(flow: OAuthFlow): void
  /** The person's (or, for `''`, the service account's) token, refreshed when near expiry; throws needs_auth without a connection. */
  token(provider: string, subject: string, scopes: string[], signal?: AbortSignal): Promise<TokenSet>
  /** Whether the person has a usable connection with these scopes, from memory. */
  state(provider: string, subject: string, scopes: readonly string[]): { state: 'ready' | 'needs_auth' }
  /** Where the person connects (a skillplane link). */
  authorizationUrl(provider: string, subject: string, scopes: string[]): string
  client(provider: string): Promise<unknown>
  saveClient(provider: string, info: unknown): Promise<void>
  list(filter: { subject?: string }): Promise<Array<{ provider: string; subject: string | null; state: string }>>
  onConnected(listener: (provider: string, subject: string) => void): () => void
  /** The resource server refused this token (revoked, say): the connection goes back to needs_auth, unless it holds another by now. */
  refused(provider: string, subject: string, accessToken: string, reason: string): Promise<boolean>
}
