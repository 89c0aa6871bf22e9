import type { AuditRow } from '../store/index.js'
import { identityOf } from '../skill/index.js'
import type { Call } from './call.js'

/**
 * The one place a call becomes an audit row: its `running` row as it starts, its final row as it
 * ends. The final row of a recorded call is its running row (committed, so no writer holds it any
 * more) with what a finish changes: one row object per call.
 */
export function toAuditRow(call: Call, managerId: string): AuditRow {
  const running = call.row
  if (running) return finish(running, call)
  const { caller, finishedAt } = call
  const identity = identityOf(caller)
  return {
    call_id: call.id,
    parent_call_id: call.parent?.callId ?? null,
    skill_key: call.shownKey,
    caller_id: caller.id,
    caller_name: caller.name,
    caller_kind: caller.kind,
    caller_role: caller.kind === 'agent' ? 'agent' : caller.role,
    caller_user_id: identity.userId,
    caller_display_name: identity.displayName,
    caller_auth: identity.auth,
    caller_key_id: identity.keyId,
    agent_id: call.agentId,
    conversation_id: call.conversationId,
    edge_id: call.edge?.id ?? null,
    edge_name: call.edge?.name ?? null,
    manager_id: managerId,
    input: call.inputJson ?? '"[input is not JSON]"',
    result: call.result,
    result_truncated: call.resultTruncated ? 1 : 0,
    error_code: call.errorCode,
    error_message: call.errorMessage,
    status: call.status,
    started_at: new Date(call.startedAt).toISOString(),
    finished_at: finishedAt === null ? null : new Date(finishedAt).toISOString(),
    duration_ms: finishedAt === null ? null : finishedAt - call.startedAt,
    approval_id: call.approvalId,
    trace_id: call.traceId,
    grant_id: call.grantId,
    origin_call_id: call.options.origin?.callId ?? null,
    spans: spansOf(call),
  }
}

const spansOf = (call: Call): string | null => (call.spans.length === 0 ? null : JSON.stringify(call.spans))

function finish(row: AuditRow, call: Call): AuditRow {
  const { finishedAt } = call
  row.result = call.result
  row.result_truncated = call.resultTruncated ? 1 : 0
  row.error_code = call.errorCode
  row.error_message = call.errorMessage
  row.status = call.status
  row.finished_at = finishedAt === null ? null : new Date(finishedAt).toISOString()
  row.duration_ms = finishedAt === null ? null : finishedAt - call.startedAt
  row.approval_id = call.approvalId
  row.trace_id = call.traceId
  row.grant_id = call.grantId
  row.spans = spansOf(call)
  return row
}
