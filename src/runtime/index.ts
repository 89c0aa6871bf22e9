export { Pipeline, type InvokeOptions, type PipelineDeps } from './pipeline.js'
export { success, failure } from './envelope.js'
export { DeadlineExceeded, ShuttingDown } from './abort-reasons.js'
export { SkillError, isSkillError, type SkillErrorCode } from './skill-error.js'
