import type { Call, Connected } from '../call.js'
import { connectValues } from '../connect-values.js'
import { isRefusal, type Refusal } from '../refusal.js'
import type { StageDeps } from '../stage.js'

/**
 * The secrets and settings the skill declares are there for this caller, checked before
 * anyone is asked to approve a call that could not run; the executor gets them only after the gate.
 */
export function connectCall(call: Call, deps: StageDeps): Refusal | undefined | Promise<Refusal | undefined> {
  const present = connectValues(call, deps.connections, deps.oauth)
  return present instanceof Promise ? present.then((p) => keep(call, p)) : keep(call, present)
}

function keep(call: Call, present: Connected | Refusal): Refusal | undefined {
  if (isRefusal(present)) return present
  call.present = present
  return undefined
}
