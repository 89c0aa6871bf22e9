import * as client from 'openid-client'
import type { ResolvedOidc } from '../config/index.js'
import { IdentityProviderUnavailableError } from './token-errors.js'
import { SkillplaneError } from '../errors/index.js'

/** What the browser carries from the sign-in's start to its callback, kept by the server under `state`. */
export interface SignInChecks {
  state: string
  codeVerifier: string
  nonce: string
}

/** A sign-in the provider refused or that doesn't check out (wrong state, a replayed code): the person starts again. */
export class SignInError extends SkillplaneError {
  override readonly code = 'unauthorized'
  override readonly name = 'SignInError'
}

/**
 * The console's sign-in at the identity provider: the authorization code flow with PKCE (S256),
 * state and nonce, through openid-client. The provider's metadata is discovered once, when first needed.
 */
export class OidcSignIn {
  #config: Promise<client.Configuration> | undefined

  constructor(
    private readonly oidc: ResolvedOidc,
    private readonly options: { clientSecret: string | undefined; redirectUri: () => string },
  ) {}

  /** Where to send the browser, and the checks its callback must pass. */
  async begin(): Promise<{ url: URL; checks: SignInChecks }> {
    const config = await this.#discovered()
    const checks = { state: client.randomState(), codeVerifier: client.randomPKCECodeVerifier(), nonce: client.randomNonce() }
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: this.options.redirectUri(),
      scope: this.oidc.scopes.join(' '),
      code_challenge: await client.calculatePKCECodeChallenge(checks.codeVerifier),
      code_challenge_method: 'S256',
      state: checks.state,
      nonce: checks.nonce,
    })
    return { url, checks }
  }

  /**
   * Redeem the callback's code: the ID token is checked (signature, issuer, audience, expiry,
   * nonce), and its claims are merged with the provider's userinfo, where groups often live.
   */
  async complete(callbackUrl: URL, checks: SignInChecks): Promise<Record<string, unknown>> {
    const config = await this.#discovered()
    const denied = callbackUrl.searchParams.get('error')
    if (denied) throw new SignInError(`the identity provider refused the sign-in: ${callbackUrl.searchParams.get('error_description') ?? denied}`)
    let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>
    try {
      tokens = await client.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: checks.codeVerifier,
        expectedState: checks.state,
        expectedNonce: checks.nonce,
        idTokenExpected: true,
      })
    } catch (error) {
      throw new SignInError(`the sign-in could not be completed: ${(error as Error).message}`)
    }
    const claims = tokens.claims()!
    if (!config.serverMetadata().userinfo_endpoint) return { ...claims }
    try {
      const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub)
      return { ...info, ...claims }
    } catch (error) {
      throw new SignInError(`the identity provider's userinfo could not be read: ${(error as Error).message}`)
    }
  }

  #discovered(): Promise<client.Configuration> {
    this.#config ??= (async () => {
      const { issuer, clientId } = this.oidc
      const auth = this.options.clientSecret === undefined ? client.None() : client.ClientSecretPost(this.options.clientSecret)
      try {
        return await client.discovery(new URL(issuer), clientId, undefined, auth, {
          // The config allows http only for a provider on this machine.
          ...(issuer.startsWith('http:') && { execute: [client.allowInsecureRequests] }),
          timeout: 10,
        })
      } catch (error) {
        throw new IdentityProviderUnavailableError(`the identity provider at ${issuer} can't be reached: ${(error as Error).message}`)
      }
    })()
    // A failed discovery is tried again at the next sign-in.
    this.#config.catch(() => (this.#config = undefined))
    return this.#config
  }
}
