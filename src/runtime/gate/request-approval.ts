import type { Call } from '../call.js'
import { interrupted } from '../interrupted.js'
import { refusal, type Refusal } from '../refusal.js'
import type { StageDeps } from '../stage.js'
import { recordWaiting } from '../record-waiting.js'
import { approvalDetails } from './approval-details.js'
import type { ApprovalAsk } from './approval-ask.js'
import { claimApproval } from './claim-approval.js'
import { traceApprovalWait } from './approval-wait-span.js'

/** File a request for the call and answer approval_required, or, when asked to, wait for its decision and run on it. */
export async function requestApproval(call: Call, deps: StageDeps, ask: ApprovalAsk): Promise<Refusal | undefined> {
  const { approvals } = deps
  const { skill, edge } = call
  const { reason, wait, waitMs } = ask
  const request = await approvals.create({
    skill: skill.key,
    skillClass: skill.class,
    // Validated input is JSON.
    inputJson: call.inputJson!,
    inputHash: ask.hash,
    caller: call.caller,
    agentId: call.agentId,
    conversationId: call.conversationId,
    callId: call.id,
    reason,
    requirement: ask.policy.requirement,
    onBehalfOf: call.behalf,
    edge: edge && { id: edge.id, name: edge.name },
  })
  call.approvalId = request.id
  const pending = refusal(
    'approval_required',
    `skill "${skill.key}" needs approval (${reason}): request ${request.id} waits for ` +
      `${request.approvalsRequired} approver${request.approvalsRequired === 1 ? '' : 's'}; once approved, invoke again with approvalId "${request.id}" and the same input`,
    'approval_required',
    approvalDetails(request),
  )
  if (!wait) return pending
  await recordWaiting(call, deps, pending.message)
  const cancel = call.cancel!
  const outcome = await approvals.waitForDecision(request.id, waitMs, cancel.signal)
  traceApprovalWait(request.id, request.createdAt, Date.now(), outcome)
  // Claim only for a caller still there: a claimed approval is spent.
  if (cancel.aborted) return interrupted(cancel)
  if (outcome === 'approved') {
    const claimed = await claimApproval(call, deps, ask, request.id)
    return claimed.ok ? undefined : refusal(claimed.code, claimed.message, 'denied')
  }
  if (outcome === 'rejected') return refusal('approval_rejected', `approval request ${request.id} was rejected`, 'denied')
  if (outcome === 'expired') return refusal('approval_expired', `approval request ${request.id} expired`, 'denied')
  return { ...pending, message: `${pending.message} (no decision within ${Math.ceil(waitMs / 1000)} s of waiting)` }
}
