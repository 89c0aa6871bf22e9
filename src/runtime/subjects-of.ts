import type { Caller } from '../skill/index.js'
import type { Subjects } from '../connections/index.js'

/** Whose values a call uses: the person calling (or the one an agent run acts for), and the agent. */
export function subjectsOf(caller: Caller, agentId: string | null, onBehalfOf: Caller | null | undefined): Subjects {
  const user = caller.kind === 'user' ? caller : onBehalfOf?.kind === 'user' ? onBehalfOf : null
  return { agent: agentId, user: user?.name ?? null }
}
