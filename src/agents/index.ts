// Runs are started with plane.runs and test runs with the test_run skill; these are their shapes.
export type { AgentRunner, RunView, RunStep, RunStatus } from './agent-runner.js'
export type { TestRunResult, Verdict } from './test-run.js'
export { RunError } from './run-error.js'
