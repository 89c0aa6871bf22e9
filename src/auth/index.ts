export { ApiKeys, hashKey, KEY_ROLES, type CreatedKey, type KeyInfo, type KeyRole } from './api-keys.js'
