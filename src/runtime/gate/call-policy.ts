import { decidePolicy, type EffectiveDecision, type Policies } from '../../policy/index.js'
import type { Call } from '../call.js'
import { refusal, type Refusal } from '../refusal.js'

/** The policy for this call: the stricter of the agent's and the person's it acts for; DENY refuses. */
export function callPolicy(call: Call, policies: Policies): EffectiveDecision | Refusal {
  const { skill, caller, agentId, edge } = call
  const rows = policies.rows()
  let policy = decidePolicy({ skill: skill.key, skillClass: skill.class, caller, agentId, edge, policies: rows })
  const behalf = call.behalf
  if (behalf) {
    const theirs = decidePolicy({ skill: skill.key, skillClass: skill.class, caller: behalf, agentId, edge, policies: rows })
    if (theirs.decision === 'DENY')
      return refusal('denied', `skill "${skill.key}" is denied for ${behalf.name}, on whose behalf the agent acts: ${theirs.reason}`, 'denied')
    if (theirs.decision === 'ASK' && policy.decision === 'ALWAYS') policy = theirs
  }
  if (policy.decision === 'DENY') return refusal('denied', `skill "${skill.key}" is denied: ${policy.reason}`, 'denied')
  return policy
}
