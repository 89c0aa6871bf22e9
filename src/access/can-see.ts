import type { Caller } from '../skill/index.js'
import type { SkillSharing } from '../registry/index.js'
import { isSharedWith } from './shared-with.js'

/** The catalog's answers access needs: bindings, enablement and sharing. */
export interface BindingView {
  isEnabled(key: string): boolean
  isBound(agentId: string, key: string): boolean
  sharing(key: string): SkillSharing
}

/**
 * Whether a caller may see a skill at all: agent keys see only their bound skills, and nobody
 * sees a skill not shared with them (`agentId`: the agent a person acts for, when one).
 */
export function canSee(
  caller: Caller,
  skill: { key: string },
  catalog: Pick<BindingView, 'isBound' | 'sharing'>,
  agentId: string | null = caller.kind === 'agent' ? caller.agentId : null,
): boolean {
  if (caller.kind === 'agent' && !catalog.isBound(caller.agentId, skill.key)) return false
  return isSharedWith(catalog.sharing(skill.key), caller, agentId)
}

/**
 * Whether a caller may activate an instruction skill: one shared with it, and for an agent (its
 * own key, or a person acting for it) an enabled skill bound to it that doesn't opt out of model
 * invocation; for a person alone, any enabled skill.
 */
export function mayActivate(caller: Caller, agentId: string | null, skill: { name: string; disableModelInvocation: boolean }, catalog: BindingView): boolean {
  const agent = caller.kind === 'agent' ? caller.agentId : agentId
  return (
    catalog.isEnabled(skill.name) &&
    isSharedWith(catalog.sharing(skill.name), caller, agent) &&
    (agent === null || (catalog.isBound(agent, skill.name) && !skill.disableModelInvocation))
  )
}
