import type { Envelope, SkillContext } from '../skill/index.js'
import type { Call } from './call.js'
import type { CallCancel } from './call-cancel.js'
import type { Deadlines } from './deadlines.js'
import type { PipelineDeps } from './pipeline-deps.js'
import type { Refusal } from './refusal.js'

/** What the pipeline lends its stages besides its dependencies. */
export interface StageDeps extends PipelineDeps {
  /** True once the pipeline is closing: new calls are refused. */
  closing: () => boolean
  /** The calls that can be cancelled now, by id: a shutdown interrupts them. */
  inFlight: Map<string, CallCancel>
  /** Where a running call's deadline is kept. */
  deadlines: Deadlines
  /** The `ctx` the call's executor (and `needsApproval`) gets. */
  context: (call: Call) => SkillContext
}

/**
 * Why a stage stops a call: a refusal (the call ends in finish, with its final row), or an
 * envelope the caller gets as it is (nothing more is recorded).
 */
export type Stop = Refusal | Envelope

/**
 * One step of every call: it reads and fills in the call, and returns nothing to go on or why the
 * call stops. Synchronous when it can be: most calls never wait in most stages.
 */
export type Stage = (call: Call, deps: StageDeps) => Stop | undefined | Promise<Stop | undefined>
