import { SpanKind, TraceFlags, context, isSpanContextValid, trace, type SpanContext } from '@opentelemetry/api'

// A ULID, as skillplane's call ids are; and a W3C traceparent of version 00.
const CALL_ID = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/

const tracer = trace.getTracer('skillplane')

/** What a tools/call's `_meta` says made it: another skillplane's call, and the trace it runs in. */
export interface McpOrigin {
  origin: { callId: string } | null
  parent: SpanContext | null
}

/**
 * Read a client's `_meta`: a call id shaped as skillplane's (stored as the call's origin: a link
 * shown in call trees, never trusted for anything) and a valid `traceparent`. Anything else, of
 * any size or type, is ignored: it is the client's word and gives it nothing.
 */
export function readOrigin(meta: unknown): McpOrigin {
  if (typeof meta !== 'object' || meta === null) return { origin: null, parent: null }
  const { 'skillplane/callId': callId, traceparent } = meta as Record<string, unknown>
  const origin = typeof callId === 'string' && CALL_ID.test(callId) ? { callId } : null
  const match = typeof traceparent === 'string' ? TRACEPARENT.exec(traceparent) : null
  const parent: SpanContext | null = match
    ? { traceId: match[1]!, spanId: match[2]!, traceFlags: Number.parseInt(match[3]!, 16) & TraceFlags.SAMPLED, isRemote: true }
    : null
  return { origin, parent: parent && isSpanContextValid(parent) ? parent : null }
}

/**
 * Run `work` in the caller's trace, under a `tools/call <tool>` server span, when a tracer records
 * spans here; without one the client's trace is not taken up (its trace id would become the audit's).
 */
export async function inCallerTrace<T>(parent: SpanContext | null, tool: string, work: () => Promise<T>): Promise<T> {
  if (parent === null) return work()
  const span = tracer.startSpan(`tools/call ${tool}`, { kind: SpanKind.SERVER }, trace.setSpanContext(context.active(), parent))
  if (!span.isRecording()) {
    span.end()
    return work()
  }
  try {
    return await context.with(trace.setSpan(context.active(), span), work)
  } finally {
    span.end()
  }
}
