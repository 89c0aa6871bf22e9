import type { Caller } from '../skill/index.js'
import type { SkillSharing } from '../registry/index.js'
import { seesEverySkill } from '../abilities/index.js'

/**
 * Whether a skill's sharing lets a caller see it: those who manage skills see every one; a skill shared with
 * agents is seen by those agents' keys and by a person acting for one of them; a skill shared with
 * users by those users (by name or id), under any key of theirs. Everything else is hidden, like an unknown key.
 */
export function isSharedWith(sharing: SkillSharing, caller: Caller, agentId: string | null): boolean {
  if (sharing.visibility === 'all') return true
  if (seesEverySkill(caller)) return true
  if (sharing.visibility === 'agents') {
    const agent = caller.kind === 'agent' ? caller.agentId : agentId
    return agent !== null && sharing.agents.includes(agent)
  }
  return caller.kind === 'user' && (sharing.users.includes(caller.name) || sharing.users.includes(caller.id))
}
