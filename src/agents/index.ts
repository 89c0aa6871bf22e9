export { AgentRunner, type RunView, type RunStep, type RunStatus } from './agent-runner.js'
export { testRun, type TestRunResult, type TestRunInput, type Verdict } from './test-run.js'
export { RunError } from './run-error.js'
export { createModel } from './create-model.js'
