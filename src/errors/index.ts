export { SkillplaneError } from './skillplane-error.js'
export type { ErrorCode } from './error-code.js'
