import { resolve } from 'node:path'
import type { Caller } from '../../skill/skill-types.js'
import type { CatalogEntry } from '../../registry/sync.js'
import type { Finding } from './finding.js'
import { loadInstructionSkills, SkillFileCache, type InstructionSkill } from './load-instruction-skills.js'

export interface SkillDirConfig {
  path: string
  /** Agents (names or aliases) that may see every skill under this path. */
  agents: string[]
}

export interface LibrarySkill extends InstructionSkill {
  agents: string[]
}

/** Visibility rules need the catalog's enabled flags and bindings. */
export interface CatalogView {
  isEnabled(key: string): boolean
  isBound(agentId: string, key: string): boolean
}

/** The loaded instruction skills, their load findings, and who may see which. */
export class InstructionLibrary {
  readonly #byName: Map<string, LibrarySkill>

  private constructor(
    readonly skills: readonly LibrarySkill[],
    readonly findings: readonly Finding[],
  ) {
    this.#byName = new Map(skills.map((s) => [s.name, s]))
  }

  /** Load the configured folders in order (the first to define a name wins); a shared cache makes reloads cheap. */
  static load(dirs: readonly SkillDirConfig[], cwd = process.cwd(), cache = new SkillFileCache()): InstructionLibrary {
    const roots = dirs.map((d) => resolve(cwd, d.path))
    const { skills, findings } = loadInstructionSkills(roots, undefined, cache)
    const agentsFor = (skill: InstructionSkill) => dirs.find((d, i) => skill.file.startsWith(roots[i]!))?.agents ?? []
    return new InstructionLibrary(
      skills.map((s) => ({ ...s, agents: agentsFor(s) })),
      findings,
    )
  }

  get(name: string): LibrarySkill | undefined {
    return this.#byName.get(name)
  }

  /**
   * What a caller may see: for an agent (its own key, or a human acting for it) the enabled skills
   * bound to it that don't opt out of model invocation; for a human alone, every enabled skill.
   */
  visibleTo(caller: Caller, agentId: string | null, catalog: CatalogView): LibrarySkill[] {
    const agent = caller.kind === 'agent' ? caller.agentId : agentId
    return this.skills.filter(
      (s) => catalog.isEnabled(s.name) && (agent === null || (catalog.isBound(agent, s.name) && !s.disableModelInvocation)),
    )
  }

  /** Catalog rows and bindings for sync. */
  entries(): CatalogEntry[] {
    return this.skills.map((s) => ({
      key: s.name,
      source: 'agent-skill',
      origin: s.file,
      class: 'safe',
      scope: 'manager',
      category: 'instructions',
      title: s.name,
      description: s.description,
      tags: [],
      agents: s.agents,
    }))
  }
}
