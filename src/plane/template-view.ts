import type { Registry, Catalog } from '../registry/index.js'
import { type Policies, decidePolicy } from '../policy/index.js'
import type { Caller } from '../skill/index.js'
import type { TemplateView } from '../sources/agent-skills/index.js'

/**
 * What a SKILL.md.template sees: the caller, the agent, config variables, and per category the
 * executable skills the caller may see that the effective policy denies.
 */
export function templateView(
  parts: { registry: Registry; catalog: Catalog; policies: Policies; vars: TemplateView['vars'] },
  caller: Caller,
  agentId: string | null,
): TemplateView {
  const { registry, catalog, policies } = parts
  const agent = caller.kind === 'agent' ? caller.agentId : agentId
  // A Map, not an object: a category is any text a pack or MCP server chose, "__proto__" included.
  const byCategory = new Map<string, string[]>()
  for (const skill of registry.list()) {
    if (skill.source === 'agent-skill' || (agent !== null && !catalog.isBound(agent, skill.key))) continue
    const decision = decidePolicy({ skill: skill.key, skillClass: skill.class, caller, agentId: agent, policies: policies.rows() })
    if (decision.decision === 'DENY') byCategory.set(skill.category, [...(byCategory.get(skill.category) ?? []), skill.key])
  }
  const info = agent ? catalog.agent(agent) : undefined
  return {
    user: { id: caller.id, name: caller.name, role: caller.kind === 'agent' ? 'agent' : caller.role },
    agent: agent ? { id: agent, name: info?.name ?? agent } : null,
    vars: parts.vars,
    denied: Object.fromEntries(byCategory),
  }
}
