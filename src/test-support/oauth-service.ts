// The tests' OAuth service is the demo's: one real authorization server and API, exercised by both.
export { startTestOAuthService, SERVICE_CLIENT, SERVICE_SCOPES, type TestOAuthService } from '../../examples/services/demo-oauth.js'
