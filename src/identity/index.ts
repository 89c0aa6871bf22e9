export { ProtectedResource, type ResourceMetadata, type ResourcePath } from './protected-resource.js'
export { tokenCaller, type TokenCallerContext } from './token-caller.js'
export { InvalidTokenError, TokenRefusedError, IdentityProviderUnavailableError } from './token-errors.js'
