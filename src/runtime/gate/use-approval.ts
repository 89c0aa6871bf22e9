import type { Call } from '../call.js'
import { interrupted } from '../interrupted.js'
import { refusal, type CallStatus, type Refusal } from '../refusal.js'
import type { StageDeps } from '../stage.js'
import { approvalDetails } from './approval-details.js'
import type { ApprovalAsk } from './approval-ask.js'
import { claimApproval } from './claim-approval.js'
import { coveringGrant } from './covering-grant.js'
import { traceApprovalWait } from './approval-wait-span.js'

/** Run on the request the call names: claim it (waiting for its decision when asked to), or a grant that covers the call. */
export async function useApproval(call: Call, deps: StageDeps, ask: ApprovalAsk, id: string): Promise<Refusal | undefined> {
  const cancel = call.cancel!
  call.approvalId = id
  // A caller already gone must not spend the approval: claiming is for a call that will run.
  if (cancel.aborted) return interrupted(cancel)
  let claimed = await claimApproval(call, deps, ask, id)
  // A request that can't be used (pending, already used, …) is no reason to refuse a call a grant covers.
  if (!claimed.ok && (await coveringGrant(call, deps, ask))) return undefined
  if (!claimed.ok && claimed.code === 'approval_required' && ask.wait) {
    const outcome = await deps.approvals.waitForDecision(id, ask.waitMs, cancel.signal)
    if (cancel.aborted) return interrupted(cancel)
    if (outcome !== 'pending') claimed = await claimApproval(call, deps, ask, id)
  }
  if (claimed.ok) {
    traceApprovalWait(id, claimed.requestedAt, claimed.decidedAt ?? Date.now(), 'approved')
    return undefined
  }
  const status: CallStatus = claimed.code === 'approval_required' ? 'approval_required' : claimed.code === 'not_found' ? 'error' : 'denied'
  return refusal(claimed.code, claimed.message, status, claimed.pending && approvalDetails(claimed.pending))
}
