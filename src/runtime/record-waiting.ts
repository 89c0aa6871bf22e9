import type { Call } from './call.js'
import type { StageDeps } from './stage.js'
import { toAuditRow } from './to-audit-row.js'

/** The row of a call that waits for its approval, on record before it waits: a crash leaves an accurate row. */
export function recordWaiting(call: Call, deps: Pick<StageDeps, 'audit' | 'managerId'>, message: string): Promise<void> {
  return deps.audit.write({ ...toAuditRow(call, deps.managerId), status: 'approval_required', error_code: 'approval_required', error_message: message })
}
