export { authorize, type AuthorizeInput } from './authorize.js'
