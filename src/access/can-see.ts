import type { Caller } from '../skill/index.js'

/** The catalog's answers access needs: bindings and enablement. */
export interface BindingView {
  isEnabled(key: string): boolean
  isBound(agentId: string, key: string): boolean
}

/** Whether a caller may see an executable skill at all: agent keys see only their bound skills. */
export function canSee(caller: Caller, skill: { key: string }, catalog: Pick<BindingView, 'isBound'>): boolean {
  return caller.kind !== 'agent' || catalog.isBound(caller.agentId, skill.key)
}

/**
 * Whether a caller may activate an instruction skill: for an agent (its own key, or a person
 * acting for it) an enabled skill bound to it that doesn't opt out of model invocation; for a
 * person alone, any enabled skill.
 */
export function mayActivate(caller: Caller, agentId: string | null, skill: { name: string; disableModelInvocation: boolean }, catalog: BindingView): boolean {
  const agent = caller.kind === 'agent' ? caller.agentId : agentId
  return catalog.isEnabled(skill.name) && (agent === null || (catalog.isBound(agent, skill.name) && !skill.disableModelInvocation))
}
