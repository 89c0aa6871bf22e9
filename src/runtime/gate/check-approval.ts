import type { Call } from '../call.js'
import { refusal, type Refusal } from '../refusal.js'
import type { StageDeps } from '../stage.js'
import { approvalDetails } from './approval-details.js'
import type { ApprovalAsk } from './approval-ask.js'
import { coveringGrant } from './covering-grant.js'

/**
 * A `check` call looks at the request it names, never claims it (claiming spends it): it would run
 * on an approved one or a grant, waits on a pending one, or asks anew.
 */
export async function checkApproval(call: Call, deps: StageDeps, ask: ApprovalAsk, id: string): Promise<'run' | 'ask' | Refusal> {
  const view = await deps.approvals.get(id)
  if (view?.status === 'approved') {
    // It runs now, on an approval: report which.
    call.approvalId = id
    return 'run'
  }
  if (await coveringGrant(call, deps, ask)) return 'run'
  if (view?.status !== 'pending') return 'ask'
  call.approvalId = id
  return { ...refusal('approval_required', `approval request ${id} is still pending`, 'approval_required', approvalDetails(view)), filed: false }
}
