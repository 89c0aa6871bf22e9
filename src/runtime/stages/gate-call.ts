import type { EffectiveDecision } from '../../policy/index.js'
import type { Envelope } from '../../skill/index.js'
import type { Call } from '../call.js'
import { success } from '../envelope.js'
import { approvalAsk } from '../gate/approval-ask.js'
import { callPolicy } from '../gate/call-policy.js'
import { checkApproval } from '../gate/check-approval.js'
import { coveringGrant } from '../gate/covering-grant.js'
import { namedApproval } from '../gate/named-approval.js'
import { requestApproval } from '../gate/request-approval.js'
import { skillNeedsApproval } from '../gate/skill-needs-approval.js'
import { useApproval } from '../gate/use-approval.js'
import { isRefusal, refusal } from '../refusal.js'
import type { StageDeps, Stop } from '../stage.js'
import { storeProblem } from '../store-problem.js'

/**
 * Policy, then approval when it says ASK, a decision a file in `gate/`. A `check` call
 * stops here: it answers whether it would run, and runs nothing.
 */
export function gateCall(call: Call, deps: StageDeps): Stop | undefined | Promise<Stop | undefined> {
  const policy = callPolicy(call, deps.policies)
  if (isRefusal(policy)) return policy
  if (policy.decision === 'ALWAYS' && !call.skill.needsApproval) return passed(call)
  return approve(call, deps, policy).then((stop) => stop ?? passed(call))
}

function passed(call: Call): Envelope | undefined {
  return call.approval.mode === 'check' ? success({ wouldRun: true, approvalId: call.approvalId }, call.id) : undefined
}

async function approve(call: Call, deps: StageDeps, policy: EffectiveDecision): Promise<Stop | undefined> {
  let reason = policy.reason
  if (policy.decision === 'ALWAYS') {
    const asked = await skillNeedsApproval(call)
    if (asked === null || isRefusal(asked)) return asked ?? undefined
    reason = asked
  }
  const ask = approvalAsk(call, deps, policy, reason)
  try {
    const id = await namedApproval(call, deps.approvals, ask.hash)
    if (id && call.approval.mode === 'check') {
      const seen = await checkApproval(call, deps, ask, id)
      if (seen !== 'ask') return seen === 'run' ? undefined : seen
    } else if (id) {
      return await useApproval(call, deps, ask, id)
    }
    if (await coveringGrant(call, deps, ask)) return undefined
    return await requestApproval(call, deps, ask)
  } catch (error) {
    deps.logger.error({ err: error, callId: call.id }, 'approval handling failed')
    return refusal('unavailable', `approvals can't be handled right now: ${storeProblem(error)}`, 'error')
  }
}
