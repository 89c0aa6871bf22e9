import type { Caller, CallerRole, SkillClass } from '../skill/skill-types.js'

const ROLE_MAY_RUN: Record<CallerRole, readonly SkillClass[]> = {
  viewer: ['safe'],
  operator: ['safe', 'mutating'],
  admin: ['safe', 'mutating', 'dangerous'],
}

export interface AuthorizeInput {
  key: string
  skillClass: SkillClass
  caller: Caller
  /** The agent the call is made for (an agent key's own agent, or one a user acts as). */
  agentId: string | null
  isBound: (agentId: string, key: string) => boolean
}

/** Stage 3 of the pipeline: null when allowed, else the reason for `denied`. */
export function authorize(input: AuthorizeInput): string | null {
  const { key, skillClass, caller, agentId } = input
  if (agentId !== null && !input.isBound(agentId, key)) {
    return `skill "${key}" is not bound to agent "${agentId}"`
  }
  if (skillClass === 'dangerous') {
    // Lifted by the approvals work: dangerous calls need two approvers and a signed procedure.
    return `skill "${key}" is dangerous: it needs two approvers and a signed procedure, and approval support is required to run it`
  }
  if (caller.kind === 'agent') {
    if (skillClass !== 'safe') {
      return `skill "${key}" is ${skillClass}: an agent may run it only with a human approval, and approval support is required`
    }
    return null
  }
  if (!ROLE_MAY_RUN[caller.role].includes(skillClass)) {
    return `role ${caller.role} may not run ${skillClass} skill "${key}"`
  }
  return null
}
