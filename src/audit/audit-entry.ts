import type { AuditRow } from '../store/index.js'

export interface AuditEntry {
  callId: string
  parentCallId: string | null
  /** The call another skillplane said made this one (over MCP): a link for call trees, never trusted. */
  originCallId: string | null
  skill: string
  /**
   * A person's id and name are their user's; an agent key's are the key's. `user` is the person (for
   * an agent key, the user it belongs to), `auth` how the caller authenticated (`key`; null
   * in-process: the library, the local CLI), `keyId` the key it used.
   */
  caller: {
    id: string
    name: string
    kind: string
    role: string
    user: { id: string; displayName: string } | null
    auth: string | null
    keyId: string | null
  }
  agent: string | null
  conversationId: string | null
  /** The edge a host-scope call ran on: its id and its name at the time. */
  edgeId: string | null
  edgeName: string | null
  status: string
  input: unknown
  /** The result, or for a truncated one the first bytes of its JSON as a string. */
  result: unknown
  resultTruncated: boolean
  error: { code: string; message: string } | null
  startedAt: string
  finishedAt: string | null
  durationMs: number | null
  /** The approval request this call asked for or ran with. */
  approvalId: string | null
  /** The OpenTelemetry trace the call ran in, when one was active. */
  traceId: string | null
  /** The conversation grant that let the call run without a request of its own. */
  grantId: string | null
}

/** The public shape of an audit row (HTTP and `skillplane audit --json`). */
export function toAuditEntry(row: AuditRow): AuditEntry {
  const truncated = row.result_truncated === 1
  return {
    callId: row.call_id,
    parentCallId: row.parent_call_id,
    originCallId: row.origin_call_id ?? null,
    skill: row.skill_key,
    caller: {
      id: row.caller_id,
      name: row.caller_name,
      kind: row.caller_kind,
      role: row.caller_role,
      user: row.caller_user_id === null ? null : { id: row.caller_user_id, displayName: row.caller_display_name ?? row.caller_name },
      auth: row.caller_auth,
      keyId: row.caller_key_id,
    },
    agent: row.agent_id,
    conversationId: row.conversation_id,
    edgeId: row.edge_id,
    edgeName: row.edge_name,
    status: row.status,
    input: parse(row.input),
    result: row.result === null ? null : truncated ? row.result : parse(row.result),
    resultTruncated: truncated,
    error: row.error_code ? { code: row.error_code, message: row.error_message ?? '' } : null,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    durationMs: row.duration_ms === null ? null : Number(row.duration_ms),
    approvalId: row.approval_id,
    traceId: row.trace_id,
    grantId: row.grant_id,
  }
}

function parse(json: string): unknown {
  try {
    return JSON.parse(json)
  } catch {
    return json
  }
}
