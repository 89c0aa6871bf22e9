import type { ResolvedOidc } from '../config/index.js'
import type { Caller } from '../skill/index.js'
import { tokenCaller, type TokenCallerContext } from './token-caller.js'
import { TokenVerifier } from './token-verifier.js'

const WELL_KNOWN = '/.well-known/oauth-protected-resource'
/** The paths this server protects with its own resource identifier: the root (`/api`) and `/mcp`. */
export type ResourcePath = '' | '/mcp'

/** RFC 9728 protected resource metadata. */
export interface ResourceMetadata {
  resource: string
  authorization_servers: string[]
  bearer_methods_supported: string[]
  scopes_supported: string[]
}

/**
 * skillplane as an OAuth protected resource (RFC 9728) of the configured identity provider: its
 * resource identifiers (the public URL, and it with `/mcp`), their metadata, and the callers of access tokens.
 */
export class ProtectedResource {
  readonly #oidc: ResolvedOidc
  readonly #baseUrl: () => string
  readonly #verifier: TokenVerifier

  /** `baseUrl`: the origin clients reach this server at (`http.publicUrl`, or the address it listens on). */
  constructor(oidc: ResolvedOidc, baseUrl: () => string) {
    this.#oidc = oidc
    this.#baseUrl = baseUrl
    this.#verifier = new TokenVerifier(oidc.issuer, () => this.audiences())
  }

  /** The resource identifier of the root or `/mcp`: what a client asks its tokens to be for. */
  resource(path: ResourcePath): string {
    return this.#baseUrl() + path
  }

  metadataUrl(path: ResourcePath): string {
    return this.#baseUrl() + WELL_KNOWN + path
  }

  metadata(path: ResourcePath): ResourceMetadata {
    return {
      resource: this.resource(path),
      authorization_servers: [this.#oidc.issuer],
      bearer_methods_supported: ['header'],
      scopes_supported: this.#oidc.scopes,
    }
  }

  /** What a token's `aud` must include: the configured audience, or one of this server's resource identifiers. */
  audiences(): string[] {
    if (this.#oidc.audience !== undefined) return [this.#oidc.audience]
    const base = this.#baseUrl()
    return [base, `${base}/`, this.resource('/mcp')]
  }

  /** The caller a bearer access token stands for; throws InvalidTokenError, TokenRefusedError or IdentityProviderUnavailableError. */
  async callerFor(token: string, context: TokenCallerContext): Promise<Caller> {
    return tokenCaller(await this.#verifier.verify(token), this.#oidc, context)
  }
}
