import type { Envelope } from '../../skill/index.js'
import type { Call } from '../call.js'
import { failure } from '../envelope.js'
import type { StageDeps } from '../stage.js'
import { storeProblem } from '../store-problem.js'
import { toAuditRow } from '../to-audit-row.js'

/** The running row is durable before the executor starts, or the call does not run (and, never running, has no final row). */
export async function recordCall(call: Call, deps: StageDeps): Promise<Envelope | undefined> {
  try {
    const row = toAuditRow(call, deps.managerId)
    await deps.audit.write(row)
    call.row = row
    return undefined
  } catch (error) {
    deps.logger.error({ err: error, callId: call.id }, 'audit write failed; call refused')
    return failure('unavailable', `the audit log can't be written, so the call was not run: ${storeProblem(error)}`, call.id)
  }
}
