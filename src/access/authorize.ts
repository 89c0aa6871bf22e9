import type { Caller, SkillClass } from '../skill/index.js'
import { mayRunClass } from '../abilities/index.js'

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
  if (!mayRunClass(caller, skillClass)) {
    return `role ${caller.role} may not run ${skillClass} skill "${key}"`
  }
  return null
}
