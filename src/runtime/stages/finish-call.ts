import type { Logger } from 'pino'
import { type AuditWriter, redact, scrubText, scrubValue } from '../../audit/index.js'
import type { AuditRow } from '../../store/index.js'
import type { Envelope, EnvelopeError } from '../../skill/index.js'
import { failure } from '../envelope.js'
import type { CallStatus } from './refusal.js'
import { serialize } from './serialize.js'

export interface FinishDeps {
  audit: AuditWriter
  logger: Logger
  /** Results larger than this are stored cut, and marked so. */
  maxResultBytes: number
}

export interface FinishInput {
  row: AuditRow
  startedAt: number
  status: CallStatus
  envelope: Envelope
  outputSchema?: Record<string, unknown>
  /** Secret input values, scrubbed from what is stored of the result and the error. */
  secrets?: ReadonlySet<string>
  /**
   * Secret values skillplane gave the executor: scrubbed from the envelope the caller gets too,
   * even when a remote service echoed them back.
   */
  injected?: ReadonlySet<string>
}

/** Stage 8: the final audit row, committed (or kept in the backlog) before the envelope returns. */
export async function finishCall(deps: FinishDeps, input: FinishInput): Promise<Envelope> {
  const { row: running, startedAt, status, outputSchema, injected } = input
  let { envelope, secrets } = input
  if (injected?.size) {
    envelope = envelope.ok
      ? { ...envelope, data: scrubValue(envelope.data, injected) }
      : { ...envelope, error: scrubValue(envelope.error, injected) as EnvelopeError }
    secrets = secrets?.size ? new Set([...secrets, ...injected]) : injected
  }
  const finishedAt = Date.now()
  const row: AuditRow = { ...running, status, finished_at: new Date(finishedAt).toISOString(), duration_ms: finishedAt - startedAt }
  if (envelope.ok) {
    // Input secrets an executor echoes back are scrubbed from the stored result too.
    const data = envelope.data
    const json = serialize(() => redact(data, outputSchema, { scrub: secrets }))
    if (json === undefined) {
      row.status = 'error'
      envelope = failure('invalid_output', 'the result is not JSON-serializable', running.call_id)
    } else if (Buffer.byteLength(json) > deps.maxResultBytes) {
      row.result = truncateUtf8(json, deps.maxResultBytes)
      row.result_truncated = 1
    } else {
      row.result = json
    }
  }
  if (!envelope.ok) {
    row.error_code = envelope.error.code
    row.error_message = secrets?.size ? scrubText(envelope.error.message, secrets) : envelope.error.message
  }
  try {
    await deps.audit.finish(row)
  } catch (error) {
    // Not even the local backlog took it: the running row stays, and recovery marks it interrupted.
    deps.logger.error({ err: error, callId: row.call_id }, 'audit write of a finished call failed')
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
