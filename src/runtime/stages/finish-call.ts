import { redact, scrubText, scrubValue } from '../../audit/index.js'
import type { Envelope, EnvelopeError } from '../../skill/index.js'
import type { Call } from '../call.js'
import { failure, success } from '../envelope.js'
import { serialize } from '../serialize.js'
import type { StageDeps } from '../stage.js'
import { toAuditRow } from '../to-audit-row.js'
import { tellCaller } from '../tell-caller.js'

/**
 * Where every call that no envelope stopped ends: its final audit row,
 * committed (or kept in the backlog) before the envelope returns.
 */
export async function finishCall(call: Call, deps: StageDeps): Promise<Envelope> {
  const stop = call.refusal
  let envelope: Envelope = stop ? failure(stop.code, stop.message, call.id, stop.details) : success(call.output === undefined ? null : call.output, call.id)
  // A gate-only check leaves no row unless it filed an approval request.
  if (stop && call.approval.mode === 'check' && !(stop.filed ?? stop.code === 'approval_required')) return envelope
  const { injected } = call
  // Input secrets an executor echoes back are scrubbed from what is stored; secrets it was given, from the envelope too.
  let secrets: ReadonlySet<string> = call.secrets
  if (injected.size) {
    envelope = envelope.ok
      ? { ...envelope, data: scrubValue(envelope.data, injected) }
      : { ...envelope, error: scrubValue(envelope.error, injected) as EnvelopeError }
    secrets = secrets.size ? new Set([...secrets, ...injected]) : injected
  }
  call.finishedAt = Date.now()
  call.status = stop ? stop.status : 'ok'
  if (envelope.ok) {
    const data = envelope.data
    const json = serialize(() => redact(data, call.skill.output?.jsonSchema, { scrub: secrets }))
    if (json === undefined) {
      call.status = 'error'
      envelope = failure('invalid_output', 'the result is not JSON-serializable', call.id)
    } else if (Buffer.byteLength(json) > deps.maxResultBytes) {
      call.result = truncateUtf8(json, deps.maxResultBytes)
      call.resultTruncated = true
    } else {
      call.result = json
    }
  }
  if (!envelope.ok) {
    call.errorCode = envelope.error.code
    const message = secrets.size ? scrubText(envelope.error.message, secrets) : envelope.error.message
    // A connect link is its person's to use: the caller gets it, the audit (which every operator reads) does not.
    const link = envelope.error.details?.authorizationUrl
    call.errorMessage = typeof link === 'string' ? message.replaceAll(link, '[connect link]') : message
  }
  tellCaller(call, deps, envelope)
  try {
    await deps.audit.finish(toAuditRow(call, deps.managerId))
  } catch (error) {
    // Not even the local backlog took it: the running row stays, and recovery marks it interrupted.
    deps.logger.error({ err: error, callId: call.id }, 'audit write of a finished call failed')
  }
  if (envelope.ok && deps.onCallOk) {
    try {
      deps.onCallOk({ key: call.skill.key, conversationId: call.conversationId })
    } catch (error) {
      deps.logger.warn({ err: error, callId: call.id }, 'a call observer failed')
    }
  }
  return envelope
}

function truncateUtf8(text: string, maxBytes: number): string {
  const buffer = Buffer.from(text)
  // Cut on a character boundary: back up over UTF-8 continuation bytes.
  let end = maxBytes
  while (end > 0 && (buffer[end]! & 0xc0) === 0x80) end--
  return buffer.subarray(0, end).toString()
}
