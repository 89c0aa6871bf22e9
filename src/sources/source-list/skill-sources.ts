import type { Logger } from 'pino'
import type { Registry, CatalogEntry } from '../../registry/index.js'
import { providerNames, type ResolvedConfig } from '../../config/index.js'
import type { ActivationRepository } from '../../store/index.js'
import type { SkillContext } from '../../skill/index.js'
import type { ProcessGroups } from '../../system/index.js'
import { InstructionSource, type CatalogView, type InstalledFolder, type TemplateView } from '../agent-skills/index.js'
import { codeSource, type CodeDefinition } from '../code/index.js'
import { PackSource } from '../packs/index.js'
import { HttpSource } from '../http/index.js'
import { McpSource, type McpSourceOptions } from '../mcp/index.js'
import { edgeSource, type Edges } from '../edge/index.js'
import type { SkillSource, SourcesReport } from '../skill-source/index.js'

export interface SkillSourcesOptions {
  config: ResolvedConfig
  /** False: load no folder, document or server (a plane that only opens the store). */
  load: boolean
  registry: Registry
  /** The config's skills (kind `code`). */
  code: readonly CodeDefinition[]
  /** What the plane and what is built on it add (kind `built-in`): discovery, memory, test_run. */
  builtIns: readonly CodeDefinition[]
  /** Where `skills add` installs (loaded after the configured SKILL.md folders), with its lockfile checks. */
  installed: InstalledFolder
  processGroups: ProcessGroups
  logger: Logger
  /** Read when a tool runs, not when the list is built. */
  catalog(): CatalogView
  activations(): ActivationRepository
  templateView(ctx: Pick<SkillContext, 'caller' | 'agent'>): TemplateView
  mcp: Pick<McpSourceOptions, 'store' | 'connect' | 'onChange' | 'now' | 'secrets' | 'oauth'>
  edges(): Edges
}

/**
 * Every source of skills, as one list: each starts in order (an earlier one holds a name first),
 * reloads, reports under its kind, and closes in reverse. A new kind of source is one more entry.
 */
export class SkillSources {
  readonly instructions: InstructionSource
  readonly packs: PackSource
  readonly mcp: McpSource
  readonly #list: readonly SkillSource[]
  readonly #registry: Registry

  constructor(options: SkillSourcesOptions) {
    const { registry, logger, processGroups } = options
    const config = options.load ? options.config : withoutSources(options.config)
    this.#registry = registry
    this.instructions = new InstructionSource({
      dirs: config.skillDirs,
      projectSkills: config.projectSkills,
      installed: options.load ? options.installed : null,
      registry,
      agents: config.agents,
      scripts: config.skillScripts,
      processGroups,
      logger,
      catalog: options.catalog,
      activations: options.activations,
      templateView: options.templateView,
    })
    // Packs, HTTP and MCP skills may not take a name instruction skills hold.
    const reserved = (name: string) => this.instructions.reserved(name)
    this.packs = new PackSource({ dirs: config.packDirs, registry, processGroups, reserved, providers: providerNames(config), logger })
    this.mcp = new McpSource({ servers: config.mcpServers, registry, taken: reserved, logger, ...options.mcp })
    this.#list = [
      codeSource('code', options.code, registry),
      codeSource('built-in', options.builtIns, registry),
      // Packs before SKILL.md folders: a pack keeps its name from an instruction skill loaded later.
      this.packs,
      this.instructions,
      new HttpSource({ skills: config.httpSkills, openapi: config.openapi, registry, taken: reserved, logger }),
      this.mcp,
      edgeSource(options.edges, registry),
    ]
  }

  async start(): Promise<void> {
    for (const source of this.#list) await source.start()
  }

  /** Load every source again; the skills (instruction skills by name) that came and went. */
  async reload(): Promise<{ added: string[]; removed: string[] }> {
    const before = this.#skills()
    // SKILL.md folders first: a name an instruction skill gave up is free for a pack in the same reload.
    for (const source of [this.instructions, ...this.#list.filter((s) => s !== this.instructions)]) await source.reload()
    const after = this.#skills()
    return { added: [...after].filter((key) => !before.has(key)), removed: [...before].filter((key) => !after.has(key)) }
  }

  /** Every source with what it holds and what loading it found wrong, by kind. */
  report(): SourcesReport {
    return Object.fromEntries(this.#list.map((source) => [source.kind, source.report()])) as SourcesReport
  }

  async close(): Promise<void> {
    for (const source of [...this.#list].reverse()) await source.close()
  }

  /** What sync writes: every registered skill and every loaded instruction skill. */
  entries(): CatalogEntry[] {
    return this.instructions.catalogEntries(this.#registry.list())
  }

  /** Every category the registry's skills carry, sorted. */
  categories(): string[] {
    return [...new Set(this.#registry.list().map((s) => s.category))].sort()
  }

  #skills(): Set<string> {
    return new Set(this.#list.flatMap((source) => source.report().skills))
  }
}

/** The config with no source to load: what a store-only plane registers besides its code skills. */
function withoutSources(config: ResolvedConfig): ResolvedConfig {
  return { ...config, packDirs: [], skillDirs: [], httpSkills: [], openapi: [], mcpServers: [], projectSkills: false }
}
