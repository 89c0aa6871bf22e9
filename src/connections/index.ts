export { SecretsKey, SECRETS_KEY_ENV } from './secrets-key.js'
export { Connections, awaitingOf, type ConnectionsDeps, type Resolved } from './connections.js'
export { ConnectionValueError } from './connection-value-error.js'
export {
  type ValueKind,
  type ValueScope,
  type ValueOwner,
  type Subjects,
  type ConnectionNeeds,
  type ConnectionState,
  type ConnectionStateName,
  type ConnectionValueInfo,
} from './connection-types.js'
export { agreeOnFingerprint } from './agree-on-fingerprint.js'
export { rotateSecretsKey, type SecretsKeyRotation } from './rotate-secrets-key.js'
