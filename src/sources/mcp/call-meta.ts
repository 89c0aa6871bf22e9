import { isSpanContextValid, trace } from '@opentelemetry/api'

/** The `_meta` keys a skillplane sends with tools/call and answers with: its call id, and the trace the call runs in. */
export const CALL_ID_META = 'skillplane/callId'
export const TRACE_ID_META = 'skillplane/traceId'

/**
 * What a call tells the MCP server it calls: its own call id (a skillplane there audits it as the
 * origin of its call, so the tree joins) and, inside a trace, the W3C `traceparent` to continue it.
 */
export function callMeta(callId: string): Record<string, string> {
  const meta: Record<string, string> = { [CALL_ID_META]: callId }
  const span = trace.getActiveSpan()?.spanContext()
  if (span && isSpanContextValid(span)) {
    meta[TRACE_ID_META] = span.traceId
    meta.traceparent = `00-${span.traceId}-${span.spanId}-${(span.traceFlags & 1).toString(16).padStart(2, '0')}`
  }
  return meta
}

// A ULID, as skillplane's call ids are: anything else a server sends back is no call of ours to show.
const CALL_ID = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/

/** The call id a skillplane server answered with (`_meta`), or null when the answer carries none (or something else). */
export function answeredCallId(meta: unknown): string | null {
  const id = typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>)[CALL_ID_META] : undefined
  return typeof id === 'string' && CALL_ID.test(id) ? id : null
}
