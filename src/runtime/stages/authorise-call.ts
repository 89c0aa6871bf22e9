import { authorize } from '../../access/index.js'
import type { Call } from '../call.js'
import { refusal, type Refusal } from '../refusal.js'
import type { StageDeps } from '../stage.js'

const MAX_DEPTH = 8

/** Whether this caller (and whoever it acts for) may call the skill at all. */
export function authoriseCall(call: Call, { catalog }: StageDeps): Refusal | undefined {
  const { skill, caller } = call
  const reason = authorize({ key: skill.key, skillClass: skill.class, caller, agentId: call.agentId, isBound: (a, k) => catalog.isBound(a, k) })
  if (reason !== null) return refusal('denied', reason, 'denied')
  // An agent acting for a person does no more than that person may.
  const behalf = call.behalf
  const forPerson = behalf && authorize({ key: skill.key, skillClass: skill.class, caller: behalf, agentId: null, isBound: () => true })
  if (forPerson) return refusal('denied', `on behalf of ${behalf.name}: ${forPerson}`, 'denied')
  if ((call.parent?.depth ?? 0) >= MAX_DEPTH) return refusal('denied', `nested calls are limited to a depth of ${MAX_DEPTH}`, 'denied')
  return undefined
}
