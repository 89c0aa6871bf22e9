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
  /** The refusal in a word, for a place too small for its sentence (a matrix cell), or null. */
  refusalCause: RefusalCause | null
}

export type RefusalCause = 'disabled' | 'not_shared' | 'not_bound' | 'role'

/**
 * Ask decidePolicy and authorize, the pipeline's own stages, about a subject. `edge`: for a
 * host-scope skill, the edge the call would run on, whose edge overrides then apply.
 */
export function effectivePolicy(
  view: { skills: BindingView; policies: { rows(): readonly PolicyRow[] } },
  skill: Pick<Skill, 'key' | 'class' | 'scope'>,
  subject: PolicySubject,
  edge: EdgeInfo | null = null,
  policies: readonly PolicyRow[] = view.policies.rows(),
): EffectivePolicy {
  const { caller, agentId } = subject
  const decided = decidePolicy({ skill: skill.key, skillClass: skill.class, caller, agentId, edge: skill.scope === 'host' ? edge : null, policies })
  const isBound = (a: string, k: string) => view.skills.isBound(a, k)
  const [refusal, refusalCause]: [string | null, RefusalCause | null] = !view.skills.isEnabled(skill.key)
    ? ['disabled in the catalog', 'disabled']
    : !isSharedWith(view.skills.sharing(skill.key), caller, agentId)
      ? ['not shared with this subject', 'not_shared']
      : authorized(authorize({ key: skill.key, skillClass: skill.class, caller, agentId, isBound }), agentId !== null && !isBound(agentId, skill.key))
  return {
    subject: subject.id,
    decision: decided.decision,
    reason: decided.reason,
    requirement: decided.requirement,
    policyId: decided.policyId ?? null,
    refusal,
    refusalCause,
  }
}

/** Stage 3's refusal with its cause: the agent's bindings are checked before the role. */
const authorized = (refusal: string | null, unbound: boolean): [string | null, RefusalCause | null] =>
  refusal === null ? [null, null] : [refusal, unbound ? 'not_bound' : 'role']
