import type { Call } from '../call.js'
import { CallCancel } from '../call-cancel.js'
import type { StageDeps } from '../stage.js'

/**
 * From here a call can wait (for an approval) and run, so its caller's signal and a
 * shutdown cancel it; it gets the `ctx` its executor (and `needsApproval`) sees. The pipeline
 * lets go of it when the call ends.
 */
export function trackCall(call: Call, deps: StageDeps): undefined {
  const cancel = new CallCancel()
  cancel.follow(call.options.signal)
  call.cancel = cancel
  deps.inFlight.set(call.id, cancel)
  call.ctx = deps.context(call)
  return undefined
}
