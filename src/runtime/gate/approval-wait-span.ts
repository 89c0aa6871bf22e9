import { trace } from '@opentelemetry/api'

const tracer = trace.getTracer('skillplane')

/**
 * The time a call's approval request waited for people, as its own span inside the call's (a
 * no-op without a tracer): so a trace tells waiting apart from working, as the call tree does.
 */
export function traceApprovalWait(approvalId: string, requestedAt: string, decidedAt: string | number, outcome: string): void {
  const start = Date.parse(requestedAt)
  if (Number.isNaN(start)) return
  const end = typeof decidedAt === 'number' ? decidedAt : Date.parse(decidedAt)
  const span = tracer.startSpan('approval wait', {
    startTime: start,
    attributes: { 'skillplane.approval_id': approvalId, 'skillplane.approval_outcome': outcome },
  })
  span.end(Number.isNaN(end) ? undefined : Math.max(end, start))
}
