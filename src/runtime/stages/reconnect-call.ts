import type { Call, Connected } from '../call.js'
import { connectValues } from '../connect-values.js'
import { isRefusal, type Refusal } from '../refusal.js'
import type { StageDeps } from '../stage.js'

/**
 * The secrets and settings the executor gets, read again after the gate: a value rotated
 * or deleted while the call waited for approval is not used. Each is scrubbed from what the call
 * logs, stores and answers.
 */
export function reconnectCall(call: Call, deps: StageDeps): Refusal | undefined | Promise<Refusal | undefined> {
  const { present } = call
  if (present.secrets.size + present.settings.size === 0) return open(call, present)
  const connected = connectValues(call, deps.connections, deps.oauth)
  return connected instanceof Promise ? connected.then((c) => open(call, c)) : open(call, connected)
}

function open(call: Call, connected: Connected | Refusal): Refusal | undefined {
  if (isRefusal(connected)) return connected
  for (const value of connected.secrets.values()) call.conceal(value)
  call.opened = connected
  return undefined
}
