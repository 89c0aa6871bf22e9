import type { Skill } from '../../skill/index.js'
import { redact } from '../../audit/index.js'
import { canSee, suggestKey } from '../../access/index.js'
import type { Call } from '../call.js'
import { errorMessage } from '../error-message.js'
import { refusal, type Refusal } from '../refusal.js'
import { serialize } from '../serialize.js'
import type { StageDeps } from '../stage.js'

/**
 * The agent the call is for and the skill, enabled, bound and available; for host scope,
 * the edge it runs on. The input is audited as the named skill's schema redacts it, even when the
 * call is refused.
 */
export function resolveCall(call: Call, deps: StageDeps): Refusal | undefined {
  const skill = deps.registry.get(call.key)
  const { injected } = call
  call.inputJson = serialize(() => redact(call.input, skill?.input.jsonSchema, { collect: call.secrets, ...(injected.size > 0 && { scrub: injected }) }))
  // Refused before anything is decided: its row names no agent.
  if (deps.closing()) return refusal('unavailable', 'skillplane is shutting down; retry on another manager', 'interrupted')
  return find(call, deps, skill)
}

function find(call: Call, { registry, catalog, edges }: StageDeps, skill: Skill | undefined): Refusal | undefined {
  const { caller, key } = call
  const agent = call.options.agent
  if (caller.kind === 'agent') {
    call.agentId = caller.agentId
    if (agent && catalog.resolveAgent(agent) !== call.agentId) {
      return refusal('denied', `an agent key acts only for its own agent "${call.agentId}", not "${agent}"`, 'denied')
    }
  } else if (agent) {
    call.agentId = catalog.resolveAgent(agent) ?? null
    if (call.agentId === null) return refusal('invalid_input', `unknown agent "${agent}"`, 'error')
  }
  const agentId = call.agentId
  // An agent key's registry is its bound skills, and nobody's holds a skill not shared with them: others answer exactly like unknown keys.
  if (!skill || !canSee(caller, skill, catalog, agentId)) {
    const hint = suggestKey(key, registry.list(), caller, catalog, agentId)
    return refusal('not_found', `no skill with key "${call.shownKey}"${hint}`, 'error')
  }
  if (!catalog.isEnabled(skill.key)) return refusal('unavailable', `skill "${skill.key}" is disabled in the catalog`, 'error')
  const edgeRef = call.options.edgeId
  if (skill.scope === 'host') {
    if (!edges) return refusal('edge_unavailable', `skill "${skill.key}" runs on edge agents and no edge is connected`, 'error')
    const resolved = edges.resolve(edgeRef ?? null, skill)
    if ('code' in resolved) return refusal(resolved.code, resolved.message, resolved.code === 'denied' ? 'denied' : 'error')
    call.skill = skill
    call.edge = resolved.edge
    return undefined
  }
  if (edgeRef) return refusal('invalid_input', `skill "${skill.key}" runs on the manager: edgeId applies to host-scope skills only`, 'error')
  let down: string | null
  try {
    down = skill.unavailable()
  } catch (error) {
    down = `its availability check failed: ${errorMessage(error)}`
  }
  if (down !== null) return refusal('unavailable', `skill "${skill.key}" is unavailable: ${down}`, 'error')
  call.skill = skill
  return undefined
}
