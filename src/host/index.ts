export { hostIdentity } from './host-identity.js'
export { processExists } from './process-exists.js'
