import type { Catalog } from '../../registry/index.js'
import type { Caller, Skill } from '../../skill/index.js'
import { authorize } from '../../access/index.js'
import { refusal, type Refusal } from './refusal.js'

export const MAX_DEPTH = 8

export interface AuthoriseInput {
  catalog: Catalog
  skill: Skill
  caller: Caller
  agentId: string | null
  /** The person an agent acts for, whose role limits the call too. */
  onBehalfOf: Caller | null | undefined
  /** How deep in nested `ctx.invoke` calls this one is (0 at the top). */
  depth: number
}

/** Stage 3: whether this caller (and whoever it acts for) may call the skill at all. */
export function authoriseCall({ catalog, skill, caller, agentId, onBehalfOf, depth }: AuthoriseInput): Refusal | null {
  const reason = authorize({ key: skill.key, skillClass: skill.class, caller, agentId, isBound: (a, k) => catalog.isBound(a, k) })
  if (reason !== null) return refusal('denied', reason, 'denied')
  // An agent acting for a person does no more than that person may.
  const behalf = onBehalfOf?.kind === 'user' ? onBehalfOf : null
  const forPerson = behalf && authorize({ key: skill.key, skillClass: skill.class, caller: behalf, agentId: null, isBound: () => true })
  if (forPerson) return refusal('denied', `on behalf of ${behalf.name}: ${forPerson}`, 'denied')
  if (depth >= MAX_DEPTH) return refusal('denied', `nested calls are limited to a depth of ${MAX_DEPTH}`, 'denied')
  return null
}
