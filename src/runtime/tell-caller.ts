import type { Envelope, LogLevel } from '../skill/index.js'
import type { Call } from './call.js'
import type { StageDeps } from './stage.js'

// Refusals the caller can act on (or that are policy at work) are notices, not errors.
const NOTICES = new Set(['approval_required', 'needs_auth', 'needs_input'])

/**
 * skillplane's own log lines about a call, for its caller's channel (an MCP session's
 * notifications/message): it started, it needs approval, it ended and how. Only ids, the skill,
 * codes and times: what the caller knows already, nothing of the input.
 */
export function tellCaller(call: Call, deps: StageDeps, envelope?: Envelope): void {
  const client = call.options.client
  if (!client?.capabilities.logging) return
  const base = { callId: call.id, skill: call.shownKey }
  let level: LogLevel
  let data: Record<string, unknown>
  if (envelope === undefined) {
    level = 'debug'
    data = { event: 'call.started', ...base, ...(call.parent && { parentCallId: call.parent.callId }) }
  } else if (envelope.ok) {
    level = 'info'
    data = { event: 'call.finished', ...base, status: 'ok', durationMs: (call.finishedAt ?? Date.now()) - call.startedAt }
  } else {
    const { code, message } = envelope.error
    level = NOTICES.has(code) ? 'notice' : 'error'
    const approvalId = envelope.error.details?.approvalId
    data = {
      event: code === 'approval_required' ? 'call.needs_approval' : 'call.failed',
      ...base,
      status: call.status,
      code,
      message,
      ...(typeof approvalId === 'string' && { approvalId }),
      durationMs: (call.finishedAt ?? Date.now()) - call.startedAt,
    }
  }
  try {
    client.log({ level, logger: 'skillplane', data })
  } catch (error) {
    deps.logger.warn({ err: error, callId: call.id }, "a caller's log channel failed")
  }
}
