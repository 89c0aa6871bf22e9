export { runProcess, type ProcessResult, type RunProcessOptions } from './run-process.js'
export { ProcessGroups, processStartTime } from './process-groups.js'
export { findOnPath } from './find-on-path.js'
