import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { monotonicFactory } from 'ulid'
import type { Logger } from 'pino'
import { openDatabase, type Dialect } from '../store/open-database.js'
import { AuditRepository, type AuditQuery, type AuditRow } from '../store/audit-repository.js'
import { CatalogRepository } from '../store/catalog-repository.js'
import { AgentRepository } from '../store/agent-repository.js'
import { KeyRepository } from '../store/key-repository.js'
import { ManagerRepository } from '../store/manager-repository.js'
import { AuditWriter } from '../audit/audit-writer.js'
import { AuditBacklog } from '../audit/audit-backlog.js'
import { hostIdentity, processExists } from '../host/index.js'
import { databaseUnavailable } from '../store/database-unavailable.js'
import { sql } from 'kysely'
import { ApiKeys } from '../auth/api-keys.js'
import { Registry } from '../registry/registry.js'
import { Catalog } from '../registry/catalog.js'
import { syncCatalog, type SyncReport } from '../registry/sync.js'
import { definitionOrigin } from '../skill/define-skill.js'
import type { Envelope } from '../skill/skill-types.js'
import { resolveConfig, type ResolvedConfig } from '../config/resolve-config.js'
import { createLogger } from '../config/create-logger.js'
import type { ConfigInput } from '../config/define-config.js'
import { Pipeline, type InvokeOptions } from '../runtime/index.js'
import { PolicyRepository } from '../store/policy-repository.js'
import { ApprovalRepository } from '../store/approval-repository.js'
import { SopRepository } from '../store/sop-repository.js'
import { EventRepository } from '../store/event-repository.js'
import { AuditEvents } from '../audit/audit-events.js'
import { Policies } from '../policy/policies.js'
import { Approvals } from '../policy/approvals.js'
import { ApprovalSeal, SECRET_ENV } from '../policy/approval-seal.js'
import { SettingsRepository } from '../store/settings-repository.js'
import { StoreError } from '../store/store-error.js'
import { Sops } from '../policy/sop/sops.js'
import { WebhookNotifier } from '../policy/webhook-notifier.js'
import { InstructionLibrary } from '../sources/agent-skills/instruction-library.js'
import { loadPacks } from '../sources/packs/load-packs.js'
import { packSkill } from '../sources/packs/pack-skill.js'
import { ProcessGroups } from '../sources/subprocess/index.js'
import type { Finding } from '../sources/agent-skills/finding.js'
import { instructionTools, INSTRUCTION_TOOL_KEYS } from '../sources/agent-skills/instruction-tools.js'
import { ActivationRepository } from '../store/activation-repository.js'
import { decidePolicy } from '../policy/decide-policy.js'
import type { TemplateView } from '../sources/agent-skills/render-template.js'
import { buildExport, type ExportSet } from '../sources/agent-skills/build-export.js'
import type { Caller } from '../skill/skill-types.js'
import { McpSource, type McpServerReport } from '../sources/mcp/mcp-source.js'
import { McpToolRepository } from '../store/mcp-tool-repository.js'
import { RunRepository } from '../store/run-repository.js'
import { AgentRunner } from '../agents/agent-runner.js'
import { testRunSkill, TEST_RUN_KEY } from '../agents/test-run-skill.js'

export interface SkillplaneOptions {
  /** A config object or factory (what a skillplane.config.ts exports by default). */
  config?: ConfigInput
  /** Where the config came from, for error messages. */
  configSource?: string
  /** SQLite file and other local state live here. Default `.skillplane`. */
  dataDir?: string
  /** postgres://… to share state between managers; SQLite under dataDir when absent. */
  databaseUrl?: string
  logger?: Logger
  /** Run `sync` at start-up (what `serve` does). Default false. */
  sync?: boolean
  /**
   * Connect the configured MCP servers at start (waiting for each first attempt). Default true;
   * without it their last known tools are listed and a server connects on its first call.
   */
  connectMcp?: boolean
  /**
   * Resume agent runs once their approvals are decided (here or on another manager). Default
   * true; one-shot processes turn it off, so they never exit in the middle of a resumed run.
   */
  resumeRuns?: boolean
}

export interface SourcesReport {
  mcp: McpServerReport[]
  packs: { dirs: string[]; skills: string[]; findings: readonly Finding[] }
  instructions: { dirs: string[]; skills: string[]; findings: readonly Finding[] }
}

export interface Skillplane {
  readonly config: ResolvedConfig
  readonly registry: Registry
  readonly catalog: Catalog
  readonly keys: ApiKeys
  readonly policies: Policies
  readonly approvals: Approvals
  readonly sops: Sops
  readonly events: AuditEvents
  /** What loading the configured skill packs found wrong (those packs were skipped). */
  readonly packFindings: readonly Finding[]
  /**
   * Load the pack folders again: added, changed and removed packs take effect at once (calls
   * already running finish with the executor they started with), and the catalog is synced.
   */
  reloadSources(): Promise<{
    added: string[]
    removed: string[]
    packs: string[]
    findings: readonly Finding[]
    mcp: McpServerReport[]
    sync: SyncReport
  }>
  /** The configured MCP servers: connection state, the skills their tools became, problems. */
  mcpServers(): McpServerReport[]
  /** Agent runs: start, list, show; runs waiting for approval resume when it is decided. */
  readonly runs: AgentRunner
  /** Connect the MCP servers a plane opened with `connectMcp: false` has not connected yet. */
  connectMcp(): Promise<void>
  /** Every configured source with what loading it found wrong, for operators. */
  sources(): SourcesReport
  /**
   * Call `listener` (debounced) after skills, the catalog, bindings or policies changed, so that a
   * surface can tell its clients their tool list may differ. Returns the unsubscribe function.
   */
  onSkillsChanged(listener: () => void): () => void
  /** SKILL.md instruction skills from the configured folders. */
  readonly instructions: InstructionLibrary
  /** What a SKILL.md.template is rendered with for a caller (and the agent it acts for). */
  templateView(caller: Caller, agentId: string | null): TemplateView
  /** The rendered instruction-skill files an agent (as a caller) should have, with a manifest. */
  exportSkills(caller: Caller, agentId: string | null): ExportSet
  readonly dialect: Dialect
  /** The database location with any password removed. */
  readonly location: string
  readonly dataDir: string
  readonly managerId: string
  readonly logger: Logger
  /** The report of the start-up sync, when one ran. */
  readonly startupSync: SyncReport | null
  /** Rows a crashed predecessor left `running`, marked `interrupted` at start-up. */
  readonly recoveredCalls: number
  /** Finished audit rows waiting in the local backlog for the database to come back. */
  readonly auditBacklog: number
  /** Why the database can't serve requests now, or null when a trivial query succeeds in time. */
  checkDatabase(): Promise<string | null>
  invoke(key: string, input: unknown, options: InvokeOptions): Promise<Envelope>
  sync(options?: { dryRun?: boolean; prune?: boolean }): Promise<SyncReport>
  audit: {
    query(query: AuditQuery): Promise<{ items: AuditRow[]; nextCursor: string | null }>
    get(callId: string): Promise<AuditRow | undefined>
  }
  now(): string
  close(): Promise<void>
}

// A manager whose heartbeat is older than this is considered dead and its running calls interrupted.
const HEARTBEAT_MS = 5_000
const DEAD_AFTER_MS = 30_000
const managerIds = monotonicFactory()

export async function createSkillplane(options: SkillplaneOptions = {}): Promise<Skillplane> {
  const logger = options.logger ?? createLogger('info')
  const dataDir = resolve(options.dataDir ?? '.skillplane')
  const config = await resolveConfig(options.config ?? {}, { dataDir }, options.configSource ?? '(inline)')
  const managerId = managerIds()
  const processGroups = new ProcessGroups(join(dataDir, 'process-groups'), managerId)

  const registry = new Registry({ logger, defaultTimeoutMs: config.defaults.timeoutMs })
  for (const definition of config.skills) {
    registry.register(definition, { source: 'code', origin: definitionOrigin(definition) })
  }
  // Agents with a model can be test-run, by people and by the tools of other agents.
  let runner: AgentRunner | undefined
  if (config.agents.some((a) => a.model) && !registry.get(TEST_RUN_KEY)) {
    registry.register(testRunSkill(() => runner), { source: 'code', origin: 'built-in (agent runner)' })
  }

  // Who holds a name already, for sources that must not take it.
  const takenBy = (name: string) => {
    const skill = registry.get(name)
    return skill && `skill "${skill.key}" (${skill.origin})`
  }
  const logFindings = (what: string, findings: readonly Finding[]) => {
    for (const f of findings) logger[f.severity === 'error' ? 'error' : 'warn']({ file: f.file, line: f.line }, `${what}: ${f.message}`)
  }
  const categories = () => [...new Set(registry.list().map((s) => s.category))].sort()

  // Packs are registered from their folders now and again on reload, each time as a whole set.
  // Names packs may not take: the instruction tools' (always), and instruction skills' once loaded.
  let instructionNames = new Set<string>()
  const registerPacks = (): Finding[] => {
    // Load the new set first: a folder that fails to load must not cost the working packs.
    const packs = loadPacks(config.packDirs, (name) => {
      if (registry.get(name)?.source !== 'pack' && takenBy(name)) return takenBy(name)
      if (INSTRUCTION_TOOL_KEYS.includes(name)) return 'the instruction-skill tools'
      if (instructionNames.has(name)) return `instruction skill "${name}"`
      return undefined
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
    logFindings('skill pack', found)
    return found
  }
  let packFindings = registerPacks()

  const instructions: InstructionLibrary = InstructionLibrary.load(
    [...config.skillDirs, ...(config.projectSkills && existsSync('.agents/skills') ? [{ path: '.agents/skills', agents: [] }] : [])],
    takenBy,
  )
  logFindings('instruction skill', instructions.findings)
  instructionNames = new Set(instructions.skills.map((s) => s.name))
  if (instructions.skills.length > 0) {
    const agents = [...new Set(instructions.skills.flatMap((s) => s.agents))]
    const tools = instructionTools({
      library: instructions,
      catalog: () => catalog,
      activations: () => activations,
      scriptEnv: config.skillScripts.envAllow,
      scriptTimeoutMs: config.skillScripts.timeoutMs,
      maxResourceBytes: 256 * 1024,
      maxScriptOutputBytes: 1024 * 1024,
      agents,
      templateView: (ctx) => templateView(ctx.caller, ctx.agent),
      categories,
      processGroups,
    })
    for (const tool of tools) registry.register(tool, { source: 'agent-skill', origin: 'built-in (instruction skills)' })
  }
  const database = await openDatabase({ dataDir, databaseUrl: options.databaseUrl })
  const { db } = database
  const managers = new ManagerRepository(db)
  const auditRepo = new AuditRepository(db, database.sqlite)
  const runRepo = new RunRepository(db)
  const catalog = new Catalog(new CatalogRepository(db), new AgentRepository(db))
  const activations = new ActivationRepository(db)
  const keys = new ApiKeys(new KeyRepository(db))
  const events = new AuditEvents(new EventRepository(db))
  const policies = new Policies(new PolicyRepository(db), events, (label) => catalog.resolveAgent(label))
  const sops = new Sops(new SopRepository(db), config.sopKeys, events)
  const notifier = new WebhookNotifier(config.approvals.webhookUrl, logger)
  const now = () => new Date().toISOString()

  // What a template sees: the caller, the agent, config variables, and per category the
  // executable skills the caller may see that the effective policy denies.
  const templateView = (caller: Caller, agentId: string | null): TemplateView => {
    const agent = caller.kind === 'agent' ? caller.agentId : agentId
    // A Map, not an object: a category is any text a pack or MCP server chose, "__proto__" included.
    const byCategory = new Map<string, string[]>()
    for (const skill of registry.list()) {
      if (skill.source === 'agent-skill' || (agent !== null && !catalog.isBound(agent, skill.key))) continue
      const decision = decidePolicy({ skill: skill.key, skillClass: skill.class, caller, agentId: agent, policies: policies.rows() })
      if (decision.decision === 'DENY') byCategory.set(skill.category, [...(byCategory.get(skill.category) ?? []), skill.key])
    }
    const denied = Object.fromEntries(byCategory)
    const info = agent ? catalog.agent(agent) : undefined
    return {
      user: { id: caller.id, name: caller.name, role: caller.kind === 'agent' ? 'agent' : caller.role },
      agent: agent ? { id: agent, name: info?.name ?? agent } : null,
      vars: config.templateVars,
      denied,
    }
  }
  const catalogEntries = () => [...registry.list(), ...instructions.entries()]

  // One sync at a time: MCP servers connecting in the background sync too.
  let syncing: Promise<unknown> = Promise.resolve()
  const sync = (syncOptions: { dryRun?: boolean; prune?: boolean } = {}): Promise<SyncReport> => {
    const run = syncing.then(() => syncOnce(syncOptions))
    syncing = run.catch(() => {})
    return run
  }
  const syncOnce = async (syncOptions: { dryRun?: boolean; prune?: boolean }): Promise<SyncReport> => {
    const report = await syncCatalog({
      db,
      entries: catalogEntries(),
      agents: config.agents,
      dryRun: syncOptions.dryRun ?? false,
      prune: syncOptions.prune ?? false,
      now: now(),
    })
    if (!report.dryRun) await catalog.refresh()
    return report
  }

  let closed: Promise<void> | null = null
  const host = hostIdentity()
  const started = now()
  const managerRow = () => ({ id: managerId, hostname: host, pid: process.pid, started_at: started, heartbeat_at: now() })
  // Calls of managers that stopped are marked interrupted. A manager is alive while its heartbeat
  // is fresh; on this host, also only while its process exists, so a crash is seen at once.
  const recoverInterrupted = async (): Promise<number> => {
    // Subprocesses a dead manager of this host left running stop before their calls are judged.
    const killed = ProcessGroups.reap(processGroups.dir)
    if (killed > 0) logger.warn({ groups: killed }, 'killed subprocess groups left running by a stopped manager')
    const cutoff = new Date(Date.now() - DEAD_AFTER_MS).toISOString()
    const alive = (await managers.heartbeatSince(cutoff)).filter((m) => m.hostname !== host || processExists(m.pid))
    const recovered = await auditRepo.markInterrupted([managerId, ...alive.map((m) => m.id)], now())
    const orphanedRuns = await runRepo.failOrphaned([managerId, ...alive.map((m) => m.id)], now())
    if (orphanedRuns > 0) logger.warn({ runs: orphanedRuns }, 'agent runs left running by a stopped manager were marked failed')
    if (recovered > 0) logger.warn({ calls: recovered }, 'calls left running by a stopped manager were marked interrupted')
    await managers.removeStale(cutoff)
    return recovered
  }

  let recoveredCalls = 0
  let startupSync: SyncReport | null = null
  let timer: NodeJS.Timeout | undefined
  let seal: ApprovalSeal
  const mcp = new McpSource({
    servers: config.mcpServers,
    registry,
    taken: (name) => {
      if (INSTRUCTION_TOOL_KEYS.includes(name)) return 'the instruction-skill tools'
      if (instructionNames.has(name)) return `instruction skill "${name}"`
      return undefined
    },
    store: new McpToolRepository(db),
    logger,
    onChange: () => {
      if (closed === null) sync().catch((error) => logger.warn({ err: error }, 'catalog sync after an MCP tool change failed'))
    },
    now,
  })
  const backlogDir = join(dataDir, 'audit-backlog')
  try {
    // Finished rows kept through an outage by a stopped manager land before recovery judges its calls.
    const replayed = await AuditBacklog.replay(backlogDir, auditRepo)
    if (replayed > 0) logger.warn({ rows: replayed }, 'wrote the finished audit rows a stopped manager had kept during a database outage')
    recoveredCalls = await recoverInterrupted()
    await mcp.start({ connect: options.connectMcp ?? true })
    await managers.heartbeat(managerRow())
    if (options.sync) startupSync = await sync()
    await Promise.all([catalog.refresh(), policies.refresh()])
    seal = ApprovalSeal.load(dataDir)
    const agreed = await new SettingsRepository(db).getOrInit('approval_secret_fingerprint', seal.fingerprint())
    if (agreed !== seal.fingerprint()) {
      throw new StoreError(
        `the approval secret in ${seal.source} is not the one this database's approvals are sealed with ` +
          `(fingerprint ${seal.fingerprint()}, expected ${agreed}): managers sharing a database need the same secret; ` +
          `copy approval-secret from the first manager's data dir, or set ${SECRET_ENV} on all of them`,
      )
    }
  } catch (error) {
    await mcp.close()
    await database.close().catch(() => {})
    throw error
  }
  // Surfaces that hold tool lists (MCP sessions) hear about changes, coalesced.
  const changeListeners = new Set<() => void>()
  let changeTimer: NodeJS.Timeout | undefined
  const skillsChanged = () => {
    if (changeTimer || changeListeners.size === 0) return
    changeTimer = setTimeout(() => {
      changeTimer = undefined
      for (const listener of changeListeners) {
        try {
          listener()
        } catch (error) {
          logger.warn({ err: error }, 'a skills-changed listener failed')
        }
      }
    }, 20)
    changeTimer.unref()
  }
  registry.onChange = skillsChanged
  catalog.onChange = skillsChanged
  policies.onChange = skillsChanged

  const approvals = new Approvals(new ApprovalRepository(db, database.sqlite), seal, events, sops, notifier, {
    expiresAfterMs: config.approvals.expiresAfterMs,
    pollMs: 1_000,
    hasRun: (approvalId) => auditRepo.ranWithApproval(approvalId),
  })

  const backlog = new AuditBacklog(backlogDir, managerId, auditRepo, logger)
  const writer = new AuditWriter(auditRepo, backlog)
  const pipeline = new Pipeline({
    registry,
    catalog,
    audit: writer,
    logger,
    policies,
    approvals,
    managerId,
    maxResultBytes: config.audit.maxResultBytes,
    approvalWaitMs: config.approvals.waitTimeoutMs,
  })

  // The heartbeat keeps this manager's running calls safe from its peers' recovery, the sweep
  // recovers a peer that died, and the refresh picks up catalog edits made by other managers.
  timer = setInterval(() => {
    Promise.all([managers.heartbeat(managerRow()), catalog.refresh(), policies.refresh()])
      .then(() => Promise.all([recoverInterrupted(), approvals.expireDue()]))
      .catch((error) => logger.warn({ err: error }, 'heartbeat, catalog refresh or recovery failed'))
  }, HEARTBEAT_MS)
  timer.unref()

  const plane: Skillplane = {
    config,
    registry,
    catalog,
    keys,
    policies,
    approvals,
    sops,
    events,
    instructions,
    get packFindings() {
      return packFindings
    },
    async reloadSources() {
      const before = new Map(registry.list().filter((s) => s.source === 'pack').map((s) => [s.key, s.origin]))
      packFindings = registerPacks()
      const after = registry.list().filter((s) => s.source === 'pack')
      await mcp.refresh()
      const synced = await sync()
      return {
        added: after.filter((s) => !before.has(s.key)).map((s) => s.key),
        removed: [...before.keys()].filter((key) => !registry.get(key)),
        packs: after.map((s) => s.key),
        findings: packFindings,
        mcp: mcp.status(),
        sync: synced,
      }
    },
    mcpServers: () => mcp.status(),
    get runs() {
      return runner!
    },
    connectMcp: () => mcp.connectIdle(),
    onSkillsChanged(listener) {
      changeListeners.add(listener)
      return () => changeListeners.delete(listener)
    },
    sources: () => ({
      mcp: mcp.status(),
      packs: { dirs: config.packDirs, skills: registry.list().filter((s) => s.source === 'pack').map((s) => s.key), findings: packFindings },
      instructions: {
        dirs: config.skillDirs.map((d) => d.path),
        skills: instructions.skills.map((s) => s.name),
        findings: instructions.findings,
      },
    }),
    templateView,
    exportSkills: (caller, agentId) => buildExport({ library: instructions, catalog, templateView, categories: categories() }, caller, agentId),
    dialect: database.dialect,
    location: database.location,
    dataDir,
    managerId,
    logger,
    startupSync,
    recoveredCalls,
    get auditBacklog() {
      return backlog.size
    },
    async checkDatabase() {
      let timer: NodeJS.Timeout | undefined
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('no answer within 2 s')), 2_000)
      })
      try {
        await Promise.race([sql`select 1`.execute(db), late])
        return null
      } catch (error) {
        const reason = databaseUnavailable(error)
        if (!reason) logger.warn({ err: error }, 'database health check failed')
        return reason ?? ((error as Error).message === 'no answer within 2 s' ? 'it gave no answer within 2 s' : 'a trivial query failed (see the server log)')
      } finally {
        clearTimeout(timer)
      }
    },
    invoke: (key, input, invokeOptions) => pipeline.invoke(key, input, invokeOptions),
    sync,
    audit: {
      query: (query) => auditRepo.query(query),
      get: (callId) => auditRepo.get(callId),
    },
    now,
    close() {
      closed ??= (async () => {
        clearInterval(timer)
        await runner?.close()
        clearTimeout(changeTimer)
        changeListeners.clear()
        await pipeline.close()
        await mcp.close()
        await syncing
        // Webhook retries get a short grace at shutdown; they never hold the process for long.
        await Promise.all([writer.drain(), Promise.race([notifier.drain(), new Promise((r) => setTimeout(r, 2_000).unref())])])
        // Rows still refused stay in the backlog file for the next start.
        await backlog.flush()
        backlog.close()
        processGroups.close()
        await managers.remove(managerId).catch(() => {})
        await database.close()
      })()
      return closed
    },
  }
  runner = new AgentRunner(plane, runRepo, { resume: options.resumeRuns ?? true })
  return plane
}
