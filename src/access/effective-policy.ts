import type { EdgeInfo, Skill } from '../skill/index.js'
import type { PolicyRow } from '../store/index.js'
import { decidePolicy, type PolicyDecision, type Requirement } from '../policy/index.js'
import { authorize } from './authorize.js'
import type { BindingView } from './can-see.js'
import { isSharedWith } from './shared-with.js'
import type { PolicySubject } from './policy-subject.js'

/** The policy in effect for one (skill, subject), as the pipeline's gate would decide it. */
export interface EffectivePolicy {
  subject: string
  decision: PolicyDecision
  /** Why: the class default or the override that decided. */
  reason: string
  requirement: Requirement
  /** The override that decided, or null when the class default (or the dangerous floor) did. */
  policyId: string | null
  /** Why this subject can't call the skill whatever the policy says (disabled, its role, the agent's bindings), or null. */
  refusal: string | null
}

/**
 * Ask decidePolicy and authorize, the pipeline's own stages, about a subject. `edge`: for a
 * host-scope skill, the edge the call would run on, whose edge overrides then apply.
 */
export function effectivePolicy(
  view: { catalog: BindingView; policies: { rows(): readonly PolicyRow[] } },
  skill: Pick<Skill, 'key' | 'class' | 'scope'>,
  subject: PolicySubject,
  edge: EdgeInfo | null = null,
  policies: readonly PolicyRow[] = view.policies.rows(),
): EffectivePolicy {
  const { caller, agentId } = subject
  const decided = decidePolicy({ skill: skill.key, skillClass: skill.class, caller, agentId, edge: skill.scope === 'host' ? edge : null, policies })
  const refusal = !view.catalog.isEnabled(skill.key)
    ? 'disabled in the catalog'
    : !isSharedWith(view.catalog.sharing(skill.key), caller, agentId)
      ? 'not shared with this subject'
      : authorize({ key: skill.key, skillClass: skill.class, caller, agentId, isBound: (a, k) => view.catalog.isBound(a, k) })
  return {
    subject: subject.id,
    decision: decided.decision,
    reason: decided.reason,
    requirement: decided.requirement,
    policyId: decided.policyId ?? null,
    refusal,
  }
}
