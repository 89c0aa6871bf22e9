import type { Catalog } from '../registry/index.js'
import { definitionOrigin, type SkillDefinition } from '../skill/index.js'
import type { ResolvedConfig } from '../config/index.js'
import type { Edges } from '../sources/edge/index.js'
import type { CodeDefinition } from '../sources/code/index.js'
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
 * The config's skills (kind `code`) and the built-ins (discovery, memory, learnings, what is built
 * on the plane) as the sources list registers them, first: their names are taken. A built-in other
 * than discovery yields its key to a config skill.
 */
export function codeSkills(p: CodeSkillParts): { code: CodeDefinition[]; builtIns: CodeDefinition[] } {
  const code = p.config.skills.map((definition) => ({
    origin: definitionOrigin(definition),
    // A host-scope code skill runs on an edge: the edges say whether one can take it now.
    definition:
      definition.scope === 'host'
        ? { ...definition, unavailable: () => p.edges.unavailable(definition.key) ?? definition.unavailable?.() ?? null }
        : definition,
  }))
  const discovery = discoverSkillsSkill(
    p.discovery,
    p.catalog,
    p.config.agents.map((a) => a.name),
  )
  const builtIns = [
    { definition: discovery, origin: 'built-in (discovery)' },
    ...[...memorySkills(p.memory, p.config.memory), recallSkill(p.learnings)].map((definition) => ({
      definition,
      origin: 'built-in (memory and learnings)',
      yields: true,
    })),
    ...p.builtIns.map((builtIn) => ({ ...builtIn, yields: true })),
  ]
  return { code, builtIns }
}
