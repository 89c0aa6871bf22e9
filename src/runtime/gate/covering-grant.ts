import type { Call } from '../call.js'
import type { StageDeps } from '../stage.js'
import type { ApprovalAsk } from './approval-ask.js'

/**
 * Whether a conversation grant covers the call, which then runs on it and not on a request. Mutating
 * skills only: a dangerous call (or one whose class was raised since) is approved call by call; nor
 * when the policy lets the call run and the skill asked about this input (a grant never covers other inputs).
 */
export async function coveringGrant(call: Call, { grants }: StageDeps, { policy }: ApprovalAsk): Promise<boolean> {
  const askedByInput = policy.decision === 'ALWAYS'
  const conversationId = call.conversationId
  if (call.skill.class !== 'mutating' || policy.requirement.sop || askedByInput || !conversationId) return false
  const grant = await grants.covering({
    skill: call.skill.key,
    caller: call.caller,
    agentId: call.agentId,
    conversationId,
    onBehalfOf: call.behalf,
    edgeId: call.edge?.id ?? null,
  })
  if (!grant) return false
  // It runs on the grant, not on a request: the request named stays unused.
  call.grantId = grant.id
  call.approvalId = null
  return true
}
