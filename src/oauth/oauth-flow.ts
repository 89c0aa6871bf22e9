import type { TokenSet } from './token-set.js'

/**
 * How skillplane talks to one authorization server: a provider of the config (openid-client), or an
 * imported MCP server's authorization server (the MCP SDK's client auth). The connections service
 * owns state, storage, refresh-once and audit; a flow only speaks the protocol.
 */
export interface OAuthFlow {
  /** The provider name skills declare: a config name, or `mcp:<server>`. */
  readonly name: string
  /** Shown to people: "GitHub". */
  readonly title: string
  /** Scopes asked for when a skill names none. */
  readonly defaultScopes: readonly string[]
  /**
   * Where to send the person's browser. `checks` (a PKCE verifier, say) are kept sealed with the
   * state and handed back to `complete`.
   */
  begin(request: { state: string; scopes: string[]; redirectUri: string; signal?: AbortSignal }): Promise<{ url: URL; checks: Record<string, string> }>
  /** Redeem the callback (its `code`); the callback's `state` was already checked and taken once. */
  complete(request: { callbackUrl: URL; state: string; scopes: string[]; checks: Record<string, string>; redirectUri: string }): Promise<TokenSet>
  /** New tokens for a refresh token. Throws OAuthRefusedError when the provider refuses it (revoked, expired), OAuthUnavailableError when it can't be reached. */
  refresh(tokens: TokenSet, signal?: AbortSignal): Promise<TokenSet>
  /** Revoke at the provider (RFC 7009): true once it did, false when it offers no revocation endpoint. */
  revoke?(tokens: TokenSet): Promise<boolean>
}
