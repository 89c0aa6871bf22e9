import type { Registry, Catalog } from '../registry/index.js'
import { definitionOrigin, type SkillDefinition } from '../skill/index.js'
import type { ResolvedConfig } from '../config/index.js'
import type { Edges } from '../sources/edge/index.js'
import { discoverSkillsSkill, type Discovery } from '../discovery/index.js'
import { memorySkills, type Memory } from '../memory/index.js'
import { recallSkill, type Learnings } from '../learnings/index.js'

export interface CodeSkillParts {
  config: ResolvedConfig
  edges: Edges
  discovery: Discovery
  catalog: Catalog
  memory: Memory
  learnings: Learnings
  /** Skills what is built on the plane adds beside the config's (the agent runner's test_run). */
  builtIns: Array<{ definition: SkillDefinition; origin: string }>
}

/**
 * Register the config's skills, then the built-ins (discovery, memory, learnings, what is built on
 * the plane) under the keys the config left free. Before every other source: their names are taken.
 */
export function registerCodeSkills(registry: Registry, p: CodeSkillParts): void {
  for (const definition of p.config.skills) {
    const origin = definitionOrigin(definition)
    // A host-scope code skill runs on an edge: the edges say whether one can take it now.
    const skill =
      definition.scope === 'host' ? { ...definition, unavailable: () => p.edges.unavailable(definition.key) ?? definition.unavailable?.() ?? null } : definition
    registry.register(skill, { source: 'code', origin })
  }
  registry.register(
    discoverSkillsSkill(
      p.discovery,
      p.catalog,
      p.config.agents.map((a) => a.name),
    ),
    { source: 'code', origin: 'built-in (discovery)' },
  )
  const builtIns = [
    ...[...memorySkills(p.memory, p.config.memory), recallSkill(p.learnings)].map((definition) => ({ definition, origin: 'built-in (memory and learnings)' })),
    ...p.builtIns,
  ]
  for (const { definition, origin } of builtIns) {
    if (!registry.get(definition.key)) registry.register(definition, { source: 'code', origin })
  }
}
