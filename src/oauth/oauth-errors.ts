import { SkillplaneError } from '../errors/index.js'

/** The provider refused a grant (a revoked refresh token, a denied consent): the person connects again. */
export class OAuthRefusedError extends SkillplaneError {
  override readonly code = 'needs_auth'
  override readonly name = 'OAuthRefusedError'
}

/** The provider could not be reached, or answered with a server error: try again later; nothing was lost. */
export class OAuthUnavailableError extends SkillplaneError {
  override readonly code = 'unavailable'
  override readonly name = 'OAuthUnavailableError'
}

/** A callback that doesn't check out (an unknown, replayed or expired state, another person's link). */
export class OAuthCallbackError extends SkillplaneError {
  override readonly code = 'invalid_input'
  override readonly name = 'OAuthCallbackError'
}

/** What a call needs to run: the person connects at `authorizationUrl` (a skillplane link). */
export interface NeedsConnectionDetails {
  provider: string
  /** Absent for the service account: only an admin asks for its link. */
  authorizationUrl?: string
  /** Scopes the skill needs that the connection lacks (all of them when there is no connection). */
  missingScopes: string[]
}

/** No usable connection for this person and provider (never made, refused at refresh, missing scopes). */
export class NeedsConnectionError extends SkillplaneError {
  override readonly code = 'needs_auth'
  override readonly name = 'NeedsConnectionError'
  constructor(
    message: string,
    readonly details: NeedsConnectionDetails,
  ) {
    super(message)
  }
}
