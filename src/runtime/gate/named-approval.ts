import type { Approvals } from '../../policy/index.js'
import type { Call } from '../call.js'

/** The request the call names: the one it was given (`use`, `check`) or, for `resume` and `check`, the caller's open one for this input. */
export async function namedApproval(call: Call, approvals: Approvals, hash: string): Promise<string | undefined> {
  const { approval } = call
  const findOpen = () =>
    approvals.findOpen({ skill: call.skill.key, inputHash: hash, caller: call.caller, agentId: call.agentId, conversationId: call.conversationId })
  switch (approval.mode) {
    case 'ask':
      return undefined
    case 'use':
      return approval.approvalId
    case 'resume':
      return findOpen()
    case 'check':
      return approval.approvalId ?? findOpen()
  }
}
