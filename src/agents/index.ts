// Agent runs and test runs: the runner a composition builds on the plane, and the shapes it returns.
export { AgentRunner, type RunView, type RunStep, type RunEvent } from './agent-runner.js'
export { RUN_STATUSES, type RunStatus } from './run-status.js'
export type { TestRunResult, Verdict } from './test-run.js'
export { RunError } from './run-error.js'
export { createModel } from './create-model.js'
export { describeModel, type ModelLabel } from './describe-model.js'
export { testRunSkill } from './test-run-skill.js'
export { TEST_RUN_KEY } from './test-run-key.js'
