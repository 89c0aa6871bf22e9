export { ApiKeys, hashKey, type CreatedKey, type KeyInfo, type KeyRole } from './api-keys.js'
