// Shapes of GET /api/policies and GET /api/policies/effective, mirroring the server's views.
export type Decision = 'ALWAYS' | 'ASK' | 'DENY'
export type PolicyLevel = 'global' | 'agent' | 'role' | 'user' | 'edge'

export interface Policy {
  id: string
  skill: string
  level: PolicyLevel
  subject: string
  decision: Decision
  createdBy: string
  createdAt: string
}

export interface PolicySubject {
  /** `self`, `role:<role>`, `agent:<id>` or `user:<name>`. */
  id: string
  level: 'self' | 'role' | 'agent' | 'user'
  subject: string
  label: string
  note: string | null
}

export interface EffectiveCell {
  subject: string
  decision: Decision
  reason: string
  requirement: { approvals: number; approverRole: 'operator' | 'admin'; sop: boolean }
  policyId: string | null
  /** Why the subject can't call the skill whatever the policy says, or null. */
  refusal: string | null
  /** The refusal in a word. */
  refusalCause: 'disabled' | 'not_shared' | 'not_bound' | 'role' | null
}

export interface EffectiveMatrix {
  subjects: PolicySubject[]
  skills: Array<{ key: string; class: 'safe' | 'mutating' | 'dangerous'; scope: 'manager' | 'host'; cells: EffectiveCell[] }>
  nextCursor: string | null
}
