import { INSTRUCTION_TOOL_KEYS } from '../sources/agent-skills/index.js'
import { DISCOVER_KEY } from './discovery.js'

/** The config's `discovery` settings a tool surface reads. */
export interface CatalogSettings {
  toolThreshold: number
  coreTools: string[]
}

/** Whether a surface discovers: `'auto'` past `toolThreshold` callable skills, `true` always, `false` never. */
export type DiscoveryMode = 'auto' | boolean

export interface LargeCatalog {
  /** List a core set and discover_skills, and let discovery find the rest. */
  discovering: boolean
  /**
   * The keys always in the core set: discover_skills, the config's `coreTools`, and the
   * instruction-skill tools (an agent's prompt tells it to activate skills with them).
   */
  core: Set<string>
}

/** How a tool surface shows a caller's callable skills: all of them, or (when it may call discover_skills) a core set plus discovery. */
export function largeCatalog(callable: ReadonlyArray<{ skill: { key: string } }>, settings: CatalogSettings, mode: DiscoveryMode = 'auto'): LargeCatalog {
  const others = callable.filter((entry) => entry.skill.key !== DISCOVER_KEY).length
  // A caller denied discover_skills could find nothing: it gets every tool.
  const canDiscover = others < callable.length
  return {
    discovering: canDiscover && (mode === 'auto' ? others > settings.toolThreshold : mode),
    core: new Set([DISCOVER_KEY, ...settings.coreTools, ...INSTRUCTION_TOOL_KEYS]),
  }
}
