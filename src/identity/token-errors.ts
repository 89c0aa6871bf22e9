import { SkillplaneError } from '../errors/index.js'

/** A bearer token that is not a valid access token for this server: answered 401 `invalid_token`. */
export class InvalidTokenError extends SkillplaneError {
  override readonly code = 'unauthorized'
  override readonly name = 'InvalidTokenError'
}

/** A valid token whose subject may not use skillplane (no role, an unknown agent): answered 403. */
export class TokenRefusedError extends SkillplaneError {
  override readonly code = 'denied'
  override readonly name = 'TokenRefusedError'
}

/** The identity provider's metadata or keys could not be read, so no token can be checked now: answered 503. */
export class IdentityProviderUnavailableError extends SkillplaneError {
  override readonly code = 'unavailable'
  override readonly name = 'IdentityProviderUnavailableError'
}
