import type { Caller } from '../../skill/index.js'

/** Who a call is made by, as a connection tells callers apart: the caller and the person it acts for. */
export function callerKey(caller: Caller, onBehalfOf: Caller | null): string {
  return JSON.stringify([caller.kind, caller.id, onBehalfOf && [onBehalfOf.kind, onBehalfOf.id]])
}
