import { resolve } from 'node:path'
import type { Caller } from '../../skill/index.js'
import type { CatalogEntry, SkillSharing } from '../../registry/index.js'
import type { Finding, Finding as LoadFinding } from './finding.js'
import { loadInstructionSkills, type InstructionSkill } from './load-instruction-skills.js'
import { isInside } from '../../system/index.js'
import { mayActivate } from '../../access/index.js'

export interface SkillDirConfig {
  path: string
  /** Agents (names or aliases) that may see every skill under this path. */
  agents: string[]
}

export interface LibrarySkill extends InstructionSkill {
  agents: string[]
}

/** Visibility rules need the catalog's enabled flags, bindings and sharing. */
export interface CatalogView {
  isEnabled(key: string): boolean
  isBound(agentId: string, key: string): boolean
  sharing(key: string): SkillSharing
  row(key: string): { description_override: string | null } | undefined
}

/** The loaded instruction skills, their load findings, and who may see which. */
export class InstructionLibrary {
  #skills: readonly LibrarySkill[] = []
  #findings: readonly Finding[] = []
  #dirs: readonly SkillDirConfig[] = []
  #byName = new Map<string, LibrarySkill>()

  private constructor(
    readonly dirsOf: () => readonly SkillDirConfig[],
    readonly reserved: (name: string) => string | undefined,
    readonly vetter: () => (skill: InstructionSkill) => Finding | undefined,
    readonly fileCheck: (file: string, content: Buffer) => string | null,
  ) {
    this.reload()
  }

  /**
   * Load the configured folders in order (the first to define a name wins). A skill whose name is
   * taken (`reserved` says by what) is skipped with an error, like any other unusable skill, and so
   * is one the check `vetter` makes for each load finds a reason not to serve. `dirs` as a function
   * is asked again at each reload. `fileCheck` vets each file read from a skill's folder later (a
   * resource, a script): a reason not to use it, or null.
   */
  static load(
    dirs: readonly SkillDirConfig[] | (() => readonly SkillDirConfig[]),
    reserved: (name: string) => string | undefined = () => undefined,
    vetter: () => (skill: InstructionSkill) => Finding | undefined = () => () => undefined,
    fileCheck: (file: string, content: Buffer) => string | null = () => null,
  ): InstructionLibrary {
    return new InstructionLibrary(typeof dirs === 'function' ? dirs : () => dirs, reserved, vetter, fileCheck)
  }

  get skills(): readonly LibrarySkill[] {
    return this.#skills
  }

  get findings(): readonly Finding[] {
    return this.#findings
  }

  /** The folders loaded last. */
  get dirs(): readonly SkillDirConfig[] {
    return this.#dirs
  }

  /** Load the folders again: later lookups see the skills as they are on disk now. */
  reload(): void {
    const dirs = this.dirsOf()
    const roots = dirs.map((d) => resolve(d.path))
    const loaded = loadInstructionSkills(roots)
    const vet = this.vetter()
    const findings: LoadFinding[] = [...loaded.findings]
    // A folder's agents apply to skills under it: "skills" must not claim "skills-private".
    const agentsFor = (skill: InstructionSkill) => dirs.find((_, i) => isInside(roots[i]!, skill.file))?.agents ?? []
    const skills: LibrarySkill[] = []
    for (const skill of loaded.skills) {
      const owner = this.reserved(skill.name)
      if (owner) {
        findings.push({ file: skill.file, line: 2, severity: 'error', message: `name "${skill.name}" is taken by ${owner}; skipped` })
        continue
      }
      const refused = vet(skill)
      if (refused) {
        findings.push(refused)
        continue
      }
      skills.push({ ...skill, agents: agentsFor(skill) })
    }
    this.#dirs = dirs
    this.#skills = skills
    this.#findings = findings
    this.#byName = new Map(skills.map((s) => [s.name, s]))
  }

  get(name: string): LibrarySkill | undefined {
    return this.#byName.get(name)
  }

  /** The skills a caller (acting for an agent, or not) may activate: access decides which. */
  visibleTo(caller: Caller, agentId: string | null, catalog: CatalogView): LibrarySkill[] {
    return this.skills.filter((s) => mayActivate(caller, agentId, s, catalog))
  }

  /** The description agents see: the catalog's override when an operator set one. */
  description(skill: LibrarySkill, catalog: CatalogView): string {
    return catalog.row(skill.name)?.description_override ?? skill.description
  }

  /** Catalog rows and bindings for sync. */
  entries(): CatalogEntry[] {
    return this.skills.map((s) => ({
      key: s.name,
      source: 'agent-skill',
      origin: s.file,
      declaredClass: 'safe',
      scope: 'manager',
      category: 'instructions',
      title: s.name,
      description: s.description,
      tags: [],
      agents: s.agents,
    }))
  }
}
