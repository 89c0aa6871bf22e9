import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose'
import { IdentityProviderUnavailableError, InvalidTokenError } from './token-errors.js'

// Asymmetric signatures only: never `none`, never an HMAC whose "secret" would be a public key.
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519']
// How far the provider's clock and ours may disagree, in seconds.
const CLOCK_TOLERANCE_S = 30
const METADATA_TIMEOUT_MS = 5_000
// jose's errors that say the provider's keys could not be had, rather than that the token is bad.
const PROVIDER_FAULTS = new Set([errors.JWKSTimeout.code, errors.JWKSInvalid.code])

/**
 * Checks JWT access tokens from one issuer: its signing keys come from the `jwks_uri` of its OpenID
 * (or OAuth) metadata, read once and then kept; signature, issuer, audience, expiry and not-before are checked.
 */
export class TokenVerifier {
  readonly #issuer: string
  readonly #audiences: () => string[]
  #keys: Promise<JWTVerifyGetKey> | undefined

  constructor(issuer: string, audiences: () => string[]) {
    this.#issuer = issuer
    this.#audiences = audiences
  }

  /** The token's claims; throws InvalidTokenError for a bad token, IdentityProviderUnavailableError when keys can't be read. */
  async verify(token: string): Promise<JWTPayload> {
    const keys = await this.#signingKeys()
    try {
      const { payload } = await jwtVerify(token, keys, {
        issuer: this.#issuer,
        audience: this.#audiences(),
        algorithms: ALGORITHMS,
        clockTolerance: CLOCK_TOLERANCE_S,
        requiredClaims: ['sub', 'exp'],
      })
      return payload
    } catch (error) {
      if (error instanceof errors.JOSEError && !PROVIDER_FAULTS.has(error.code)) throw new InvalidTokenError(describe(error))
      throw new IdentityProviderUnavailableError(`the identity provider's signing keys could not be read: ${(error as Error).message}`)
    }
  }

  #signingKeys(): Promise<JWTVerifyGetKey> {
    // A failed discovery is not kept: the next token tries again.
    this.#keys ??= discoverKeys(this.#issuer).catch((error: unknown) => {
      this.#keys = undefined
      throw error
    })
    return this.#keys
  }
}

async function discoverKeys(issuer: string): Promise<JWTVerifyGetKey> {
  const base = issuer.replace(/\/$/, '')
  const { pathname, origin } = new URL(base)
  // OpenID Connect discovery, then RFC 8414's form (the well-known segment before the issuer's path).
  const candidates = [`${base}/.well-known/openid-configuration`, `${origin}/.well-known/oauth-authorization-server${pathname === '/' ? '' : pathname}`]
  const problems: string[] = []
  for (const url of candidates) {
    let metadata: { issuer?: unknown; jwks_uri?: unknown }
    try {
      const response = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(METADATA_TIMEOUT_MS) })
      if (!response.ok) {
        await response.body?.cancel()
        problems.push(`${url} answered ${response.status}`)
        continue
      }
      metadata = (await response.json()) as typeof metadata
    } catch (error) {
      problems.push(`${url}: ${(error as Error).message}`)
      continue
    }
    if (metadata.issuer !== issuer)
      throw new IdentityProviderUnavailableError(`${url} names issuer ${JSON.stringify(metadata.issuer)}, not auth.oidc.issuer ${JSON.stringify(issuer)}`)
    if (typeof metadata.jwks_uri !== 'string' || !URL.canParse(metadata.jwks_uri))
      throw new IdentityProviderUnavailableError(`${url} has no jwks_uri: the provider publishes no signing keys`)
    return createRemoteJWKSet(new URL(metadata.jwks_uri))
  }
  throw new IdentityProviderUnavailableError(`the identity provider's metadata could not be read: ${problems.join('; ')}`)
}

/** Why a token was refused, for the client: which check failed, not the token. */
function describe(error: InstanceType<typeof errors.JOSEError>): string {
  if (error instanceof errors.JWTExpired) return 'the access token has expired'
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return 'the access token is for another audience, not this server'
    if (error.claim === 'iss') return 'the access token is from another issuer than auth.oidc.issuer'
    if (error.claim === 'nbf') return 'the access token is not valid yet'
    return `the access token's ${error.claim} claim is missing or wrong`
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return 'the access token is not signed with an allowed algorithm'
  if (error instanceof errors.JWKSNoMatchingKey) return "the access token is not signed by a key of the identity provider's"
  if (error instanceof errors.JWSSignatureVerificationFailed) return "the access token's signature does not verify"
  return 'the access token is malformed'
}
