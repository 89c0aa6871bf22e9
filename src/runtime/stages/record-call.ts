import type { Logger } from 'pino'
import type { AuditWriter } from '../../audit/index.js'
import type { AuditRow } from '../../store/index.js'
import { identityOf, type Caller } from '../../skill/index.js'
import { refusal, type Refusal } from './refusal.js'
import { storeProblem } from './store-problem.js'

const MAX_KEY_IN_AUDIT = 200

/** The key as audited and shown in refusals: bounded, whatever a caller sends. */
export function shownKey(key: unknown): string {
  return typeof key === 'string' ? key.slice(0, MAX_KEY_IN_AUDIT) : String(key)
}

export interface RowInput {
  callId: string
  parentCallId: string | null
  key: unknown
  caller: Caller
  conversationId: string | null | undefined
  managerId: string
  startedAt: number
  traceId: string | null
}

/** The call's audit row as it starts: `running`, with nothing decided yet. */
export function openRow(call: RowInput): AuditRow {
  const { caller } = call
  const identity = identityOf(caller)
  return {
    call_id: call.callId,
    parent_call_id: call.parentCallId,
    skill_key: shownKey(call.key),
    caller_id: caller.id,
    caller_name: caller.name,
    caller_kind: caller.kind,
    caller_role: caller.kind === 'agent' ? 'agent' : caller.role,
    caller_user_id: identity.userId,
    caller_display_name: identity.displayName,
    caller_auth: identity.auth,
    caller_key_id: identity.keyId,
    agent_id: null,
    conversation_id: call.conversationId ?? null,
    edge_id: null,
    edge_name: null,
    manager_id: call.managerId,
    input: '{}',
    result: null,
    result_truncated: 0,
    error_code: null,
    error_message: null,
    status: 'running',
    started_at: new Date(call.startedAt).toISOString(),
    finished_at: null,
    duration_ms: null,
    approval_id: null,
    trace_id: call.traceId,
    grant_id: null,
  }
}

/** Stage 5: the running row is durable before the executor starts, or the call does not run. */
export async function recordCall(deps: { audit: AuditWriter; logger: Logger }, row: AuditRow): Promise<Refusal | null> {
  try {
    await deps.audit.write({ ...row, status: 'running' })
    return null
  } catch (error) {
    deps.logger.error({ err: error, callId: row.call_id }, 'audit write failed; call refused')
    return refusal('unavailable', `the audit log can't be written, so the call was not run: ${storeProblem(error)}`, 'error')
  }
}
