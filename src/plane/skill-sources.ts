import { existsSync, readdirSync, statSync } from 'node:fs'
import type { Logger } from 'pino'
import type { Registry, Catalog, CatalogEntry } from '../registry/index.js'
import type { ResolvedConfig } from '../config/index.js'
import type { ActivationRepository, McpToolRepository } from '../store/index.js'
import type { SkillContext } from '../skill/index.js'
import { InstructionLibrary, instructionTools, INSTRUCTION_TOOL_KEYS, type TemplateView, type Finding } from '../sources/agent-skills/index.js'
import { loadPacks, packSkill } from '../sources/packs/index.js'
import type { ProcessGroups } from '../sources/subprocess/index.js'
import { McpSource, type McpServerReport } from '../sources/mcp/index.js'
import { HttpSource, type HttpSkillsReport, type OpenApiReport } from '../sources/http/index.js'
import { installedFileCheck, installedSkillCheck, managedTarget, type InstallTarget } from '../sources/bundles/index.js'

export interface SourcesReport {
  mcp: McpServerReport[]
  /** The config's httpSkills that became skills, and those that could not. */
  http: HttpSkillsReport
  /** Each OpenAPI source: its base URL, whether its document loaded, its skills and problems. */
  openapi: OpenApiReport[]
  packs: { dirs: string[]; skills: string[]; findings: readonly Finding[] }
  instructions: { dirs: string[]; skills: string[]; findings: readonly Finding[] }
}

export interface SkillSourcesOptions {
  config: ResolvedConfig
  /** False: load no folder, document or server (a plane that only opens the store). */
  load: boolean
  /** Where `skills add` installs managed skills (`<dataDir>/skills`), loaded always. */
  dataDir: string
  registry: Registry
  processGroups: ProcessGroups
  logger: Logger
  /** Read lazily: the instruction tools are built before the database is open. */
  catalog(): Catalog
  activations(): ActivationRepository
  templateView(ctx: Pick<SkillContext, 'caller' | 'agent'>): TemplateView
}

/**
 * The skills that come from outside code: pack folders, SKILL.md folders (through the built-in
 * instruction tools), HTTP skills and OpenAPI documents, and MCP servers. Each registers into
 * the registry under names no other source holds.
 */
export class SkillSources {
  readonly #o: SkillSourcesOptions
  readonly instructions: InstructionLibrary
  #packFindings: readonly Finding[] = []
  // Names packs and MCP tools may not take once the instruction skills are loaded.
  #instructionNames: ReadonlySet<string> = new Set()
  #mcp: McpSource | undefined
  readonly #http: HttpSource
  readonly #managed: InstallTarget
  // The managed lockfile as last loaded: a change means skills were installed, updated or removed.
  #lockStamp: string
  #toolsRegistered = false

  constructor(options: SkillSourcesOptions) {
    const config = options.load ? options.config : withoutSources(options.config)
    this.#o = { ...options, config }
    const { registry } = options
    this.#managed = managedTarget(options.dataDir)
    this.#packFindings = this.#registerPacks()
    // Installed skills load after the configured folders and before the project's; each load checks them against the lockfile.
    const dirs = () => [
      ...config.skillDirs,
      ...(options.load && holdsSkills(this.#managed.root) ? [{ path: this.#managed.root, agents: [] }] : []),
      ...(config.projectSkills && existsSync('.agents/skills') ? [{ path: '.agents/skills', agents: [] }] : []),
    ]
    this.#lockStamp = stamp(this.#managed.lockfile)
    this.instructions = InstructionLibrary.load(
      dirs,
      (name) => this.#takenBy(name),
      () => installedSkillCheck(this.#managed),
      installedFileCheck(this.#managed),
    )
    this.#logFindings('instruction skill', this.instructions.findings)
    this.#instructionNames = new Set(this.instructions.skills.map((s) => s.name))
    this.#http = new HttpSource({ skills: config.httpSkills, openapi: config.openapi, registry, taken: (name) => this.#reserved(name), logger: options.logger })
    this.#registerInstructionTools()
  }

  /** Whether skills were installed, updated or removed in the data dir since they were loaded. */
  installedChanged(): boolean {
    return this.#o.load && stamp(this.#managed.lockfile) !== this.#lockStamp
  }

  /** Load the SKILL.md folders again (installed skills checked anew); the names that came and went. */
  reloadInstructions(): { added: string[]; removed: string[] } {
    const before = new Set(this.instructions.skills.map((s) => s.name))
    this.#lockStamp = stamp(this.#managed.lockfile)
    this.instructions.reload()
    this.#logFindings('instruction skill', this.instructions.findings)
    this.#instructionNames = new Set(this.instructions.skills.map((s) => s.name))
    this.#registerInstructionTools()
    return {
      added: [...this.#instructionNames].filter((name) => !before.has(name)),
      removed: [...before].filter((name) => !this.#instructionNames.has(name)),
    }
  }

  // The four tools exist once any instruction skill has loaded; they stay when the last one goes.
  #registerInstructionTools(): void {
    if (this.#toolsRegistered || this.instructions.skills.length === 0) return
    this.#toolsRegistered = true
    const { config, registry } = this.#o
    const tools = instructionTools({
      library: this.instructions,
      catalog: this.#o.catalog,
      activations: this.#o.activations,
      scriptEnv: config.skillScripts.envAllow,
      scriptTimeoutMs: config.skillScripts.timeoutMs,
      maxResourceBytes: 256 * 1024,
      maxScriptOutputBytes: 1024 * 1024,
      agents: [...new Set(this.instructions.skills.flatMap((s) => s.agents))],
      templateView: this.#o.templateView,
      categories: () => this.categories(),
      processGroups: this.#o.processGroups,
    })
    for (const tool of tools) registry.register(tool, { source: 'agent-skill', origin: 'built-in (instruction skills)' })
  }

  /** What loading the configured skill packs found wrong (those packs were skipped). */
  get packFindings(): readonly Finding[] {
    return this.#packFindings
  }

  /** Every category the registry's skills carry, sorted. */
  categories(): string[] {
    return [...new Set(this.#o.registry.list().map((s) => s.category))].sort()
  }

  /** Register the config's HTTP skills and the operations of its OpenAPI documents (read now). */
  startHttp(): Promise<void> {
    return this.#http.load()
  }

  /** Register the configured MCP servers' tools; `onChange` runs when a server's list changes. */
  async startMcp(
    store: McpToolRepository,
    options: { connect: boolean; onChange(): void; now(): string; secrets?(names: string[]): Promise<Map<string, string>> },
  ): Promise<void> {
    this.#mcp = new McpSource({
      servers: this.#o.config.mcpServers,
      registry: this.#o.registry,
      taken: (name) => this.#reserved(name),
      store,
      logger: this.#o.logger,
      onChange: options.onChange,
      now: options.now,
      secrets: options.secrets,
    })
    await this.#mcp.start({ connect: options.connect })
  }

  /** Load the SKILL.md folders, pack folders and OpenAPI documents again and ask the MCP servers for their lists. */
  async reload(): Promise<{
    added: string[]
    removed: string[]
    packs: string[]
    findings: readonly Finding[]
    mcp: McpServerReport[]
    openapi: OpenApiReport[]
  }> {
    const { registry } = this.#o
    const reloaded = (s: { source: string }) => s.source === 'pack' || s.source === 'http'
    const before = new Set(
      registry
        .list()
        .filter(reloaded)
        .map((s) => s.key),
    )
    const instructions = this.reloadInstructions()
    this.#packFindings = this.#registerPacks()
    await this.#http.load()
    const after = registry.list().filter(reloaded)
    await this.#mcp?.refresh()
    return {
      added: [...instructions.added, ...after.filter((s) => !before.has(s.key)).map((s) => s.key)],
      removed: [...instructions.removed, ...[...before].filter((key) => !registry.get(key))],
      packs: after.filter((s) => s.source === 'pack').map((s) => s.key),
      findings: this.#packFindings,
      mcp: this.mcpServers(),
      openapi: this.#http.report().openapi,
    }
  }

  mcpServers(): McpServerReport[] {
    return this.#mcp?.status() ?? []
  }

  /** Secrets changed: connect the MCP servers that waited for them, reconnect those whose values changed. */
  retryMcpSecrets(): Promise<void> {
    return this.#mcp?.secretsChanged() ?? Promise.resolve()
  }

  connectMcp(): Promise<void> {
    return this.#mcp?.connectIdle() ?? Promise.resolve()
  }

  /**
   * What sync writes: every registered skill and every loaded instruction skill. The instruction
   * tools are bound to every agent that may use an instruction skill: those of its folder, and
   * those whose config binds one by name (an installed skill, say).
   */
  entries(): CatalogEntry[] {
    const names = new Set(this.instructions.skills.map((s) => s.name))
    const users = [
      ...this.instructions.skills.flatMap((s) => s.agents),
      ...this.#o.config.agents.filter((agent) => agent.skills.some((key) => names.has(key))).map((agent) => agent.name),
    ]
    const tools = (skill: CatalogEntry): CatalogEntry =>
      skill.source === 'agent-skill' && INSTRUCTION_TOOL_KEYS.includes(skill.key) ? { ...skill, agents: [...new Set([...skill.agents, ...users])] } : skill
    return [...this.#o.registry.list().map(tools), ...this.instructions.entries()]
  }

  report(): SourcesReport {
    const { config, registry } = this.#o
    return {
      mcp: this.mcpServers(),
      ...this.#http.report(),
      packs: {
        dirs: config.packDirs,
        skills: registry
          .list()
          .filter((s) => s.source === 'pack')
          .map((s) => s.key),
        findings: this.#packFindings,
      },
      instructions: {
        dirs: this.instructions.dirs.map((d) => d.path),
        skills: this.instructions.skills.map((s) => s.name),
        findings: this.instructions.findings,
      },
    }
  }

  async close(): Promise<void> {
    await this.#mcp?.close()
  }

  // Who holds a name already, for sources that must not take it.
  #takenBy(name: string): string | undefined {
    const skill = this.#o.registry.get(name)
    return skill && `skill "${skill.key}" (${skill.origin})`
  }

  // Names only instruction skills may hold: the instruction tools' (always), and the loaded skills'.
  #reserved(name: string): string | undefined {
    if (INSTRUCTION_TOOL_KEYS.includes(name)) return 'the instruction-skill tools'
    if (this.#instructionNames.has(name)) return `instruction skill "${name}"`
    return undefined
  }

  // Packs are registered as a whole set: a folder that fails to load must not cost the working packs.
  #registerPacks(): Finding[] {
    const { registry, config, processGroups } = this.#o
    const packs = loadPacks(config.packDirs, (name) => {
      if (registry.get(name)?.source !== 'pack' && this.#takenBy(name)) return this.#takenBy(name)
      return this.#reserved(name)
    })
    registry.removeSource('pack')
    const found = [...packs.findings]
    for (const pack of packs.packs) {
      try {
        registry.register(packSkill(pack, processGroups), { source: 'pack', origin: pack.file })
      } catch (error) {
        // A schema ajv can't compile skips the pack, like any other bad manifest.
        found.push({ file: pack.file, line: 1, severity: 'error', message: `${(error as Error).message}; skipped` })
      }
    }
    this.#logFindings('skill pack', found)
    return found
  }

  #logFindings(what: string, findings: readonly Finding[]): void {
    for (const f of findings) this.#o.logger[f.severity === 'error' ? 'error' : 'warn']({ file: f.file, line: f.line }, `${what}: ${f.message}`)
  }
}

/** The config with no source to load: what a store-only plane registers besides its code skills. */
function withoutSources(config: ResolvedConfig): ResolvedConfig {
  return { ...config, packDirs: [], skillDirs: [], httpSkills: [], openapi: [], mcpServers: [], projectSkills: false }
}

/** Whether a folder holds any skill folder (an empty managed folder is no finding). */
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
