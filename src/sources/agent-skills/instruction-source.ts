import { existsSync, readdirSync, statSync } from 'node:fs'
import { resolve } from 'node:path'
import type { CatalogEntry, Registry } from '../../registry/index.js'
import type { SkillContext, SkillLogger } from '../../skill/index.js'
import type { ActivationRepository } from '../../store/index.js'
import { isInside, type ProcessGroups } from '../../system/index.js'
import type { SkillSource, SourceReport } from '../skill-source/index.js'
import type { Finding } from './finding.js'
import { InstructionLibrary, type CatalogView, type SkillDirConfig } from './instruction-library.js'
import { instructionTools, INSTRUCTION_TOOL_KEYS } from './instruction-tools.js'
import type { InstructionSkill } from './load-instruction-skills.js'
import type { TemplateView } from './render-template.js'

/** The folder `skills add` installs into, with the checks that hold its skills to their lockfile. */
export interface InstalledFolder {
  root: string
  lockfile: string
  /** Asked at each load: a reason not to serve an installed skill (changed since it was installed), or undefined. */
  skillCheck(): (skill: InstructionSkill) => Finding | undefined
  /** A reason not to use a file read later from an installed skill's folder, or null. */
  fileCheck(file: string, content: Buffer): string | null
}

export interface InstructionSourceOptions {
  dirs: readonly SkillDirConfig[]
  /** Load the project's `.agents/skills` too (last). */
  projectSkills: boolean
  /** Loaded after the configured folders and before the project's; null: none. */
  installed: InstalledFolder | null
  registry: Registry
  /** The config's agents: one that binds an instruction skill by name sees the instruction tools. */
  agents: ReadonlyArray<{ name: string; skills: readonly string[] }>
  scripts: { envAllow: readonly string[]; timeoutMs: number }
  processGroups: ProcessGroups
  logger: SkillLogger
  /** Read lazily: the tools run after the store is open. */
  catalog(): CatalogView
  activations(): ActivationRepository
  templateView(ctx: Pick<SkillContext, 'caller' | 'agent'>): TemplateView
}

/**
 * SKILL.md folders: agents use them through four built-in tools (activate_skill and the like),
 * registered once any instruction skill has loaded. The skills themselves are catalog rows, not
 * registry entries; their names are reserved from every later source.
 */
export class InstructionSource implements SkillSource {
  readonly kind = 'agent-skill'
  readonly #o: InstructionSourceOptions
  #library: InstructionLibrary | undefined
  #names: ReadonlySet<string> = new Set()
  // The installed skills' lockfile as last loaded: a change means skills were installed, updated or removed.
  #lockStamp = 'none'
  #toolsRegistered = false

  constructor(options: InstructionSourceOptions) {
    this.#o = options
  }

  /** The loaded skills; empty until the source starts. */
  get library(): InstructionLibrary {
    this.#library ??= InstructionLibrary.load([])
    return this.#library
  }

  async start(): Promise<void> {
    const { installed } = this.#o
    this.#lockStamp = installed ? stamp(installed.lockfile) : 'none'
    this.#library = InstructionLibrary.load(
      () => this.#dirs(),
      (name) => {
        const skill = this.#o.registry.get(name)
        return skill && `skill "${skill.key}" (${skill.origin})`
      },
      () => installed?.skillCheck() ?? (() => undefined),
      (file, content) => installed?.fileCheck(file, content) ?? null,
    )
    this.#loaded()
  }

  async reload(): Promise<void> {
    this.reloadNow()
  }

  /** Load the folders again at once (installed skills checked anew). */
  reloadNow(): void {
    this.#lockStamp = this.#o.installed ? stamp(this.#o.installed.lockfile) : 'none'
    this.library.reload()
    this.#loaded()
  }

  /** Whether skills were installed, updated or removed in the installed folder since they were loaded. */
  installedChanged(): boolean {
    return this.#o.installed !== null && stamp(this.#o.installed.lockfile) !== this.#lockStamp
  }

  /** Names only instruction skills may hold: the instruction tools' (always), and the loaded skills'. */
  reserved(name: string): string | undefined {
    if (INSTRUCTION_TOOL_KEYS.includes(name)) return 'the instruction-skill tools'
    if (this.#names.has(name)) return `instruction skill "${name}"`
    return undefined
  }

  /**
   * What sync writes for this source beside the registry's skills: every loaded instruction skill,
   * and the instruction tools bound to every agent that may use one (those of its folder, and those
   * whose config binds one by name: an installed skill, say).
   */
  catalogEntries(registered: readonly CatalogEntry[]): CatalogEntry[] {
    const { skills } = this.library
    const users = [
      ...skills.flatMap((s) => s.agents),
      ...this.#o.agents.filter((agent) => agent.skills.some((key) => this.#names.has(key))).map((agent) => agent.name),
    ]
    const tools = (skill: CatalogEntry): CatalogEntry =>
      skill.source === 'agent-skill' && INSTRUCTION_TOOL_KEYS.includes(skill.key) ? { ...skill, agents: [...new Set([...skill.agents, ...users])] } : skill
    return [...registered.map(tools), ...this.library.entries()]
  }

  /** One entry per folder loaded, with the skills found under it. */
  report(): SourceReport {
    const { skills, dirs, findings } = this.library
    return {
      skills: skills.map((s) => s.name),
      entries: dirs.map((dir) => ({
        name: dir.path,
        state: 'loaded',
        reason: null,
        skills: skills.filter((s) => isInside(resolve(dir.path), s.file)).map((s) => s.name),
        problems: [],
        details: {},
      })),
      findings: [...findings],
    }
  }

  async close(): Promise<void> {}

  #dirs(): SkillDirConfig[] {
    const { installed } = this.#o
    return [
      ...this.#o.dirs,
      ...(installed && holdsSkills(installed.root) ? [{ path: installed.root, agents: [] }] : []),
      ...(this.#o.projectSkills && existsSync('.agents/skills') ? [{ path: '.agents/skills', agents: [] }] : []),
    ]
  }

  #loaded(): void {
    const library = this.library
    for (const f of library.findings)
      this.#o.logger[f.severity === 'error' ? 'error' : 'warn']({ file: f.file, line: f.line }, `instruction skill: ${f.message}`)
    this.#names = new Set(library.skills.map((s) => s.name))
    this.#registerTools()
  }

  // The four tools exist once any instruction skill has loaded; they stay when the last one goes.
  #registerTools(): void {
    const library = this.library
    if (this.#toolsRegistered || library.skills.length === 0) return
    this.#toolsRegistered = true
    const { registry } = this.#o
    const tools = instructionTools({
      library,
      catalog: this.#o.catalog,
      activations: this.#o.activations,
      scriptEnv: this.#o.scripts.envAllow,
      scriptTimeoutMs: this.#o.scripts.timeoutMs,
      maxResourceBytes: 256 * 1024,
      maxScriptOutputBytes: 1024 * 1024,
      agents: [...new Set(library.skills.flatMap((s) => s.agents))],
      templateView: this.#o.templateView,
      categories: () => [...new Set(registry.list().map((s) => s.category))].sort(),
      processGroups: this.#o.processGroups,
    })
    for (const tool of tools) registry.register(tool, { source: 'agent-skill', origin: 'built-in (instruction skills)' })
  }
}

/** Whether a folder holds any skill folder (an empty installed folder is no finding). */
function holdsSkills(root: string): boolean {
  try {
    return readdirSync(root, { withFileTypes: true }).some((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
  } catch {
    return false
  }
}

function stamp(file: string): string {
  try {
    const stat = statSync(file)
    return `${stat.ino}:${stat.size}:${stat.mtimeMs}`
  } catch {
    return 'none'
  }
}
