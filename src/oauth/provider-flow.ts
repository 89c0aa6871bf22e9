import * as client from 'openid-client'
import type { ResolvedOAuthProvider } from '../config/index.js'
import type { OAuthFlow } from './oauth-flow.js'
import type { TokenSet } from './token-set.js'
import { OAuthRefusedError, OAuthUnavailableError } from './oauth-errors.js'

const TIMEOUT_SECONDS = 10

/**
 * A provider of the config (`oauth.providers.NAME`), spoken to with openid-client: metadata
 * discovered from the issuer (RFC 8414, else OpenID discovery) or the endpoints as given, the
 * authorization code flow with PKCE (S256) always, refresh, and revocation (RFC 7009) where offered.
 */
export class ProviderFlow implements OAuthFlow {
  readonly title: string
  readonly defaultScopes: readonly string[]
  #metadata: Promise<client.ServerMetadata> | undefined

  constructor(
    readonly name: string,
    private readonly provider: ResolvedOAuthProvider,
    /** The client secret from the secrets store, read at each use (it can be rotated); undefined for a public client. */
    private readonly clientSecret: () => Promise<string | undefined>,
  ) {
    this.title = provider.title ?? name
    this.defaultScopes = provider.scopes
  }

  async begin(request: { state: string; scopes: string[]; redirectUri: string }): Promise<{ url: URL; checks: Record<string, string> }> {
    const config = await this.#config()
    const verifier = client.randomPKCECodeVerifier()
    const url = client.buildAuthorizationUrl(config, {
      ...this.provider.authorizationParams,
      redirect_uri: request.redirectUri,
      response_type: 'code',
      ...(request.scopes.length > 0 && { scope: request.scopes.join(' ') }),
      state: request.state,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      ...this.#resource(),
    })
    return { url, checks: { verifier } }
  }

  async complete(request: { callbackUrl: URL; state: string; scopes: string[]; checks: Record<string, string> }): Promise<TokenSet> {
    const config = await this.#config()
    const tokens = await this.#grant(() =>
      client.authorizationCodeGrant(config, request.callbackUrl, { pkceCodeVerifier: request.checks.verifier, expectedState: request.state }, this.#resource()),
    )
    return tokenSet(tokens, request.scopes)
  }

  async refresh(tokens: TokenSet): Promise<TokenSet> {
    if (!tokens.refreshToken) throw new OAuthRefusedError(`the ${this.title} connection has expired and the provider gave no refresh token`)
    const config = await this.#config()
    const next = await this.#grant(() => client.refreshTokenGrant(config, tokens.refreshToken!, this.#resource()))
    // A provider that doesn't rotate refresh tokens keeps the old one valid.
    const refreshed = tokenSet(next, tokens.scopes)
    return { ...refreshed, refreshToken: refreshed.refreshToken ?? tokens.refreshToken }
  }

  get revoke(): ((tokens: TokenSet) => Promise<boolean>) | undefined {
    if (this.provider.revocationEndpoint === undefined && this.provider.issuer === undefined) return undefined
    return async (tokens) => {
      const config = await this.#config()
      if (!config.serverMetadata().revocation_endpoint) return false
      // The refresh token first: revoking it ends the grant, access tokens with it at most providers.
      await this.#grant(async () => {
        if (tokens.refreshToken) await client.tokenRevocation(config, tokens.refreshToken, { token_type_hint: 'refresh_token' })
        await client.tokenRevocation(config, tokens.accessToken, { token_type_hint: 'access_token' })
      })
      return true
    }
  }

  #resource(): Record<string, string> {
    return this.provider.resource === undefined ? {} : { resource: this.provider.resource }
  }

  async #config(): Promise<client.Configuration> {
    const [metadata, secret] = await Promise.all([this.#discovered(), this.clientSecret()])
    const auth = secret === undefined ? client.None() : client.ClientSecretPost(secret)
    const config = new client.Configuration(metadata, this.provider.clientId, {}, auth)
    config.timeout = TIMEOUT_SECONDS
    // The config allows http only for a provider on this machine.
    if (metadata.token_endpoint?.startsWith('http:') || metadata.authorization_endpoint?.startsWith('http:')) client.allowInsecureRequests(config)
    return config
  }

  #discovered(): Promise<client.ServerMetadata> {
    const { issuer, authorizationEndpoint, tokenEndpoint, revocationEndpoint } = this.provider
    if (issuer === undefined) {
      return Promise.resolve({
        issuer: new URL(tokenEndpoint!).origin,
        authorization_endpoint: authorizationEndpoint,
        token_endpoint: tokenEndpoint,
        ...(revocationEndpoint && { revocation_endpoint: revocationEndpoint }),
      })
    }
    const discovered = (this.#metadata ??= (async () => {
      const options = (algorithm: 'oauth2' | 'oidc') => ({
        algorithm,
        timeout: TIMEOUT_SECONDS,
        ...(issuer.startsWith('http:') && { execute: [client.allowInsecureRequests] }),
      })
      let found: client.Configuration
      try {
        found = await client.discovery(new URL(issuer), this.provider.clientId, undefined, undefined, options('oauth2'))
      } catch {
        try {
          found = await client.discovery(new URL(issuer), this.provider.clientId, undefined, undefined, options('oidc'))
        } catch (error) {
          throw new OAuthUnavailableError(`the ${this.title} authorization server at ${issuer} can't be reached: ${(error as Error).message}`)
        }
      }
      // A plain copy: the helpers serverMetadata() carries are not metadata.
      const metadata = JSON.parse(JSON.stringify(found.serverMetadata())) as client.ServerMetadata
      return {
        ...metadata,
        ...(authorizationEndpoint && { authorization_endpoint: authorizationEndpoint }),
        ...(tokenEndpoint && { token_endpoint: tokenEndpoint }),
        ...(revocationEndpoint && { revocation_endpoint: revocationEndpoint }),
      }
    })())
    // A failed discovery is tried again at the next use.
    discovered.catch(() => (this.#metadata = undefined))
    return discovered
  }

  /** A request to the provider, its failures sorted: refused (the person connects again) or unavailable (try later). */
  async #grant<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request()
    } catch (error) {
      if (error instanceof client.ResponseBodyError) {
        const message = `${this.title} answered ${error.status} ${error.error}${error.error_description ? `: ${error.error_description}` : ''}`
        if (error.status >= 500) throw new OAuthUnavailableError(message)
        throw new OAuthRefusedError(message)
      }
      if (error instanceof client.AuthorizationResponseError)
        throw new OAuthRefusedError(`${this.title} refused: ${error.error}${error.error_description ? `: ${error.error_description}` : ''}`)
      if (error instanceof OAuthRefusedError || error instanceof OAuthUnavailableError) throw error
      // An answer that is not an OAuth error body (a proxy's 503 page): its status decides.
      // An OAuth error in a 200 answer (GitHub's way): the provider refused.
      const body = (error as { cause?: { cause?: { body?: { error?: unknown; error_description?: unknown } } } }).cause?.cause?.body
      if (typeof body?.error === 'string') {
        throw new OAuthRefusedError(`${this.title} answered ${body.error}${typeof body.error_description === 'string' ? `: ${body.error_description}` : ''}`)
      }
      // Duck-typed: the fetch that made it may be another realm's.
      const response = (error as { cause?: { status?: unknown } }).cause
      if (typeof response?.status === 'number') {
        const message = `${this.title} answered HTTP ${response.status}`
        if (response.status >= 500 || response.status === 429) throw new OAuthUnavailableError(message)
        throw new OAuthRefusedError(message)
      }
      throw new OAuthUnavailableError(`${this.title} can't be reached: ${(error as Error).message}`)
    }
  }
}

function tokenSet(tokens: client.TokenEndpointResponse & client.TokenEndpointResponseHelpers, asked: string[]): TokenSet {
  const expiresIn = tokens.expiresIn()
  return {
    accessToken: tokens.access_token,
    ...(tokens.refresh_token && { refreshToken: tokens.refresh_token }),
    ...(tokens.token_type && { tokenType: tokens.token_type }),
    ...(expiresIn !== undefined && { expiresAt: new Date(Date.now() + expiresIn * 1000).toISOString() }),
    // RFC 6749 5.1: a response without scope granted what was asked.
    // GitHub separates them with commas.
    scopes: tokens.scope === undefined ? asked : tokens.scope.split(/[\s,]+/).filter(Boolean),
  }
}
