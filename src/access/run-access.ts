import type { Caller } from '../skill/index.js'

/** Whether a caller may see an agent at all: an agent key only its own agent, a person every agent. */
export function maySeeAgent(caller: Caller, agentId: string): boolean {
  return caller.kind === 'user' || caller.agentId === agentId
}

/**
 * Why a caller may not start, test-run or read agent runs (`doing` names which), or null when it
 * may. Runs hold prompts and tool results, as the audit does, so they need what the audit needs.
 */
export function runAccessRefusal(caller: Caller, doing: string): string | null {
  return caller.kind === 'user' && caller.role === 'viewer' ? `${doing} needs the operator role or higher` : null
}
