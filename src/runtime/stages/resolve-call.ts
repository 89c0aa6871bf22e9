import type { Registry, Catalog } from '../../registry/index.js'
import type { Caller, EdgeInfo, Skill } from '../../skill/index.js'
import type { EdgeRouter } from '../edge-router.js'
import { errorMessage } from './error-message.js'
import { refusal, type Refusal } from './refusal.js'
import { canSee, suggestKey } from '../../access/index.js'

export interface ResolveInput {
  registry: Registry
  catalog: Catalog
  key: string
  /** The key as audited (cut to a bounded length). */
  shownKey: string
  caller: Caller
  agent: string | null | undefined
  /** The edge the call names (id or name), for host-scope skills. */
  edgeRef: string | null | undefined
  edges: EdgeRouter | undefined
}

/**
 * The agent the call is for and the skill the key names, known even when the call is refused (the
 * audit redacts the input by that skill's schema all the same).
 */
export type Resolved =
  { agentId: string | null; skill: Skill; edge: EdgeInfo | null } | { agentId: string | null; named: Skill | undefined; refusal: Refusal; edge?: undefined }

/** Stage 1: the agent the call is for and the skill, enabled, bound and available; for host scope, the edge it runs on. */
export function resolveCall({ registry, catalog, key, shownKey, caller, agent, edgeRef, edges }: ResolveInput): Resolved {
  const skill = registry.get(key)
  let agentId: string | null = null
  const refuse = (r: Refusal): Resolved => ({ agentId, named: skill, refusal: r })
  if (caller.kind === 'agent') {
    agentId = caller.agentId
    if (agent && catalog.resolveAgent(agent) !== agentId) {
      return refuse(refusal('denied', `an agent key acts only for its own agent "${agentId}", not "${agent}"`, 'denied'))
    }
  } else if (agent) {
    agentId = catalog.resolveAgent(agent) ?? null
    if (agentId === null) return refuse(refusal('invalid_input', `unknown agent "${agent}"`, 'error'))
  }
  // An agent key's registry is its bound skills, and nobody's holds a skill not shared with them: others answer exactly like unknown keys.
  if (!skill || !canSee(caller, skill, catalog, agentId)) {
    const hint = suggestKey(key, registry.list(), caller, catalog, agentId)
    return refuse(refusal('not_found', `no skill with key "${shownKey}"${hint}`, 'error'))
  }
  if (!catalog.isEnabled(skill.key)) return refuse(refusal('unavailable', `skill "${skill.key}" is disabled in the catalog`, 'error'))
  if (skill.scope === 'host') {
    if (!edges) return refuse(refusal('edge_unavailable', `skill "${skill.key}" runs on edge agents and no edge is connected`, 'error'))
    const resolved = edges.resolve(edgeRef ?? null, skill)
    if ('code' in resolved) return refuse(refusal(resolved.code, resolved.message, resolved.code === 'denied' ? 'denied' : 'error'))
    return { agentId, skill, edge: resolved.edge }
  }
  if (edgeRef) {
    return refuse(refusal('invalid_input', `skill "${skill.key}" runs on the manager: edgeId applies to host-scope skills only`, 'error'))
  }
  let down: string | null
  try {
    down = skill.unavailable()
  } catch (error) {
    down = `its availability check failed: ${errorMessage(error)}`
  }
  if (down !== null) return refuse(refusal('unavailable', `skill "${skill.key}" is unavailable: ${down}`, 'error'))
  return { agentId, skill, edge: null }
}
