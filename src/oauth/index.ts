export type { TokenSet } from './token-set.js'
export type { OAuthFlow } from './oauth-flow.js'
export { OAuthRefusedError, OAuthUnavailableError, OAuthCallbackError } from './oauth-errors.js'
