import type { Caller, EdgeInfo, SkillClass } from '../skill/index.js'
import type { PolicyRow } from '../store/index.js'

export type PolicyDecision = 'ALWAYS' | 'ASK' | 'DENY'
export type PolicyLevel = 'global' | 'agent' | 'role' | 'user' | 'edge'
export const POLICY_DECISIONS: readonly PolicyDecision[] = ['ALWAYS', 'ASK', 'DENY']
export const POLICY_LEVELS: readonly PolicyLevel[] = ['global', 'agent', 'role', 'user', 'edge']

const STRICTNESS: Record<PolicyDecision, number> = { ALWAYS: 0, ASK: 1, DENY: 2 }

export interface Requirement {
  /** Distinct approvers needed. */
  approvals: number
  /** Lowest role an approver must have. */
  approverRole: 'operator' | 'admin'
  /** Each approval must cite a signed procedure. */
  sop: boolean
}

export interface EffectiveDecision {
  decision: PolicyDecision
  /** Why: the class default or the override that decided. */
  reason: string
  requirement: Requirement
  /** The stored override that decided; absent when the class default (or the dangerous floor) did. */
  policyId?: string
}

export interface DecideInput {
  skill: string
  skillClass: SkillClass
  caller: Caller
  agentId: string | null
  /** The edge a host-scope call runs on: edge policies (by name, id or `label=value`) apply to it. */
  edge?: EdgeInfo | null
  policies: readonly PolicyRow[]
}

/**
 * The effective ALWAYS / ASK / DENY for a (skill, caller) pair. The class gives the default
 * (safe → ALWAYS; mutating → ASK for agents, ALWAYS for humans whose role allows it; dangerous →
 * ASK). Stored overrides replace it, the strictest applicable one winning, and a dangerous skill
 * never drops below ASK.
 */
export function decidePolicy(input: DecideInput): EffectiveDecision {
  const { skillClass, caller } = input
  const requirement: Requirement =
    skillClass === 'dangerous' ? { approvals: 2, approverRole: 'admin', sop: true } : { approvals: 1, approverRole: 'operator', sop: false }
  let decision: PolicyDecision = skillClass === 'safe' ? 'ALWAYS' : skillClass === 'dangerous' || caller.kind === 'agent' ? 'ASK' : 'ALWAYS'
  let policyId: string | undefined
  let reason =
    skillClass === 'dangerous'
      ? 'dangerous skill: two admins must approve, each citing a signed procedure'
      : skillClass === 'mutating' && caller.kind === 'agent'
        ? 'mutating skill requested by an agent'
        : `${skillClass} skill`

  const applicable = input.policies.filter((p) => (p.skill_key === input.skill || p.skill_key === '*') && applies(p, caller, input.agentId, input.edge ?? null))
  if (applicable.length > 0) {
    const strictest = applicable.reduce((a, b) => (STRICTNESS[b.decision as PolicyDecision] > STRICTNESS[a.decision as PolicyDecision] ? b : a))
    decision = strictest.decision as PolicyDecision
    policyId = strictest.id
    reason = `policy ${strictest.id} (${strictest.level}${strictest.level === 'global' ? '' : ` ${strictest.subject}`}, skill ${strictest.skill_key}) says ${decision}`
  }
  if (skillClass === 'dangerous' && decision === 'ALWAYS') {
    return {
      decision: 'ASK',
      reason: 'dangerous skill: its floor is ASK whatever the policy says; two admins must approve, each citing a signed procedure',
      requirement,
    }
  }
  return { decision, reason, requirement, ...(policyId && { policyId }) }
}

function applies(policy: PolicyRow, caller: Caller, agentId: string | null, edge: EdgeInfo | null): boolean {
  switch (policy.level) {
    case 'global':
      return true
    case 'agent':
      return agentId !== null && policy.subject === agentId
    case 'role':
      return policy.subject === (caller.kind === 'agent' ? 'agent' : caller.role)
    case 'user':
      // User overrides name users (any key of theirs); an agent key that happens to share the name is not that user.
      return caller.kind === 'user' && (policy.subject === caller.id || policy.subject === caller.name)
    case 'edge':
      return edge !== null && edgeMatches(policy.subject, edge)
    default:
      return false
  }
}

/** An edge policy's subject: the edge's name or id, or `label=value` for every edge carrying that label. */
export function edgeMatches(subject: string, edge: EdgeInfo): boolean {
  const eq = subject.indexOf('=')
  if (eq === -1) return subject === edge.name || subject === edge.id
  return edge.labels[subject.slice(0, eq)] === subject.slice(eq + 1)
}
