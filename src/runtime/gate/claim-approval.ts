import type { Call } from '../call.js'
import type { StageDeps } from '../stage.js'
import type { ApprovalAsk } from './approval-ask.js'

/** Spend an approved request on this call: only for the exact input (and edge) it was approved for. */
export function claimApproval(call: Call, { approvals }: StageDeps, { hash, policy }: ApprovalAsk, id: string) {
  return approvals.claim({
    id,
    skill: call.skill.key,
    input: call.value,
    inputHash: hash,
    caller: call.caller,
    agentId: call.agentId,
    callId: call.id,
    requirement: policy.requirement,
  })
}
