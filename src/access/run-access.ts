import type { Caller } from '../skill/index.js'
import { can, ABILITIES } from '../abilities/index.js'

/**
 * Why a caller may not start, test-run or read agent runs (`doing` names which), or null when it
 * may. Runs hold prompts and tool results, as the audit does, so they need what the audit needs.
 */
export function runAccessRefusal(caller: Caller, doing: string): string | null {
  return can(caller, 'runAgents') ? null : `${doing} needs the ${ABILITIES.runAgents.role} role or higher`
}
