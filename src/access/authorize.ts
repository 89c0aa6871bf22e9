import type { Caller, CallerRole, SkillClass } from '../skill/index.js'

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

/**
 * Stage 3 of the pipeline, before policy: the agent binding and the caller's role. Null when
 * allowed, else the reason for `denied`. Agent keys may ask for any bound skill; whether it runs
 * directly or after approval is the policy's decision.
 */
export function authorize(input: AuthorizeInput): string | null {
  const { key, skillClass, caller, agentId } = input
  if (agentId !== null && !input.isBound(agentId, key)) {
    return `skill "${key}" is not bound to agent "${agentId}"`
  }
  if (caller.kind === 'agent') return null
  if (!ROLE_MAY_RUN[caller.role].includes(skillClass)) {
    return `role ${caller.role} may not run ${skillClass} skill "${key}"`
  }
  return null
}
