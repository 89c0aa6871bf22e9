import { join, resolve } from 'node:path'
import { monotonicFactory } from 'ulid'
import {
  openDatabase,
  AuditRepository,
  CatalogRepository,
  CatalogChangeRepository,
  KeyRepository,
  UserRepository,
  SessionRepository,
  ManagerRepository,
  ChangeVersionRepository,
  PolicyRepository,
  ApprovalRepository,
  GrantRepository,
  SopRepository,
  EventRepository,
  SettingsRepository,
  ActivationRepository,
  McpToolRepository,
  RunRepository,
  EdgeRepository,
  StoreError,
  DiscoveryRepository,
  ConnectionValueRepository,
  MemoryRepository,
  LearningRepository,
  LeaseRepository,
  type Listener,
} from '../store/index.js'
import { sql } from 'kysely'
import { AuditWriter, AuditBacklog, AuditEvents, AuditRetention, scrubValue, toAuditEntry, planHistogram, fillHistogram } from '../audit/index.js'
import { ApiKeys, Groups, Sessions, Users } from '../auth/index.js'
import { Registry, Catalog, syncCatalog, type SyncReport } from '../registry/index.js'
import { definitionOrigin } from '../skill/index.js'
import { resolveConfig, createLogger, startServices, type RunningServices } from '../config/index.js'
import { Pipeline } from '../runtime/index.js'
import { Policies, Approvals, ApprovalSeal, Grants, SECRET_ENV, Sops, WebhookNotifier } from '../policy/index.js'
import { ProcessGroups } from '../system/index.js'
import { buildExport } from '../sources/agent-skills/index.js'
import { Edges } from '../sources/edge/index.js'
import { Discovery, discoverSkillsSkill, createEmbedder } from '../discovery/index.js'
import { Connections, SecretsKey, SECRETS_KEY_ENV } from '../secrets/index.js'
import { subjectsOf } from '../runtime/index.js'
import { Memory, memorySkills } from '../memory/index.js'
import { Learnings, recallSkill } from '../learnings/index.js'
import { valueStore } from './value-store.js'
import type { Plane, PlaneOptions } from './plane.js'
import { SkillSources } from '../sources/source-list/index.js'
import { Liveness } from './liveness.js'
import { ChangeWatch } from './change-watch.js'
import { ChangeNotifier } from './change-notifier.js'
import { checkDatabase } from './check-database.js'
import { templateView } from './template-view.js'
import { shareSkill } from './share-skill.js'
import { SkillInstaller, installedFolder, managedTarget } from '../install/index.js'

const managerIds = monotonicFactory()
// The PostgreSQL channel managers signal each other on about edges and relayed calls.
const EDGE_CHANNEL = 'skillplane_edges'

/** Build the plane's parts, connect them, recover what stopped managers left, and start beating. */
export async function createPlane(options: PlaneOptions = {}): Promise<Plane> {
  const logger = options.logger ?? createLogger('info')
  const dataDir = resolve(options.dataDir ?? '.skillplane')
  const config = await resolveConfig(options.config ?? {}, { dataDir }, options.configSource ?? '(inline)')
  const managerId = managerIds()
  const now = () => new Date().toISOString()
  const clock = options.clock ?? (() => new Date())
  const processGroups = new ProcessGroups(join(dataDir, 'process-groups'), managerId)

  const registry = new Registry({ defaultTimeoutMs: config.defaults.timeoutMs })
  // Edges are created once the database is open; a host-scope code skill asks them whether it can run.
  let edges: Edges | undefined
  const code = config.skills.map((definition) => ({
    origin: definitionOrigin(definition),
    definition:
      definition.scope === 'host' ? { ...definition, unavailable: () => edges?.unavailable(definition.key) ?? definition.unavailable?.() ?? null } : definition,
  }))
  let discovery: Discovery | undefined
  // Memory and learnings open with the database below; their skills reach them lazily.
  let memory: Memory | undefined
  let learnings: Learnings | undefined
  const builtIns = [
    {
      definition: discoverSkillsSkill(
        () => discovery!,
        () => catalog!,
        config.agents.map((a) => a.name),
      ),
      origin: 'built-in (discovery)',
    },
    ...[...memorySkills(() => memory!, config.memory), recallSkill(() => learnings!)].map((definition) => ({
      definition,
      origin: 'built-in (memory and learnings)',
      yields: true,
    })),
    ...(options.builtIns?.(config) ?? []).map((builtIn) => ({ ...builtIn, yields: true })),
  ]
  // The instruction tools read the catalog and activations lazily: the database opens below.
  let catalog: Catalog | undefined
  let activations: ActivationRepository | undefined
  const sources = new SkillSources({
    config,
    load: options.sources !== false,
    registry,
    code,
    builtIns,
    installed: installedFolder(dataDir),
    processGroups,
    logger,
    catalog: () => catalog!,
    activations: () => activations!,
    templateView: (ctx) => view(ctx.caller, ctx.agent),
    mcp: {
      store: () => mcpTools,
      connect: options.connectMcp ?? true,
      // Global values only: one connection serves every caller.
      secrets: async (names) => (await connections.resolve({ secrets: names, settings: [] }, { agent: null, user: null })).secrets,
      onChange: () => {
        if (closed === null) sync().catch((error) => logger.warn({ err: error }, 'catalog sync after an MCP tool change failed'))
      },
      now,
    },
    edges: () => edges!,
  })

  const database = await openDatabase({
    dataDir,
    databaseUrl: options.databaseUrl,
    // Long-lived planes (the ones that take part in daily sweeps) keep checkpoints off the call path.
    ...(options.dailySweeps !== false && {
      walCheckpointer: { onError: (message: string) => logger.warn({ err: message }, 'the WAL checkpoint worker failed; checkpoints run inside commits') },
    }),
  })
  const { db } = database
  const auditRepo = new AuditRepository(db, database.sqlite)
  const runRecords = new RunRepository(db)
  catalog = new Catalog(new CatalogRepository(db), new CatalogChangeRepository(db))
  registry.classOverride = (key) => catalog!.classOverride(key)
  activations = new ActivationRepository(db)
  const mcpTools = new McpToolRepository(db)
  const events = new AuditEvents(new EventRepository(db))
  // Who a key stands for changes with its user: keys forget what they remembered at once.
  const identity = {
    repo: new UserRepository(db),
    record: events.record.bind(events),
    changed: () => {
      keys.forget()
      sessions.forget()
    },
    disabled: (userId: string): Promise<number> => sessions.closeForUser(userId),
    now,
  }
  const users = new Users(identity)
  const groups = new Groups(identity, users)
  const keys = new ApiKeys(new KeyRepository(db), users)
  const sessions = new Sessions(new SessionRepository(db), users, now)
  const managers = new ManagerRepository(db)
  const watch = new ChangeWatch(new ChangeVersionRepository(db))
  const policies = new Policies(new PolicyRepository(db), events, (label) => catalog!.resolveAgent(label))
  const sops = new Sops(new SopRepository(db), config.sopKeys, events)
  const notifier = new WebhookNotifier(config.approvals.webhookUrl, logger)
  const liveness = new Liveness({
    managerId,
    managers,
    audit: auditRepo,
    runs: runRecords,
    processGroupsDir: processGroups.dir,
    logger,
    now,
  })
  const view: Plane['templateView'] = (caller, agentId) => templateView({ registry, catalog: catalog!, policies, vars: config.templateVars }, caller, agentId)

  // One sync at a time: MCP servers connecting in the background sync too.
  let syncing: Promise<unknown> = Promise.resolve()
  const sync = (syncOptions: { dryRun?: boolean; prune?: boolean | readonly string[]; force?: boolean } = {}): Promise<SyncReport> => {
    // Without its sources the registry holds too little to say what the catalog should be.
    if (options.sources === false) return Promise.reject(new Error('a plane opened without its sources (sources: false) cannot sync the catalog'))
    const run = syncing.then(async () => {
      const report = await syncCatalog({
        db,
        entries: sources.entries(),
        agents: config.agents,
        dryRun: syncOptions.dryRun ?? false,
        prune: syncOptions.prune ?? false,
        force: syncOptions.force ?? false,
        now: now(),
      })
      if (!report.dryRun) await catalog!.refresh()
      return report
    })
    syncing = run.catch(() => {})
    return run
  }

  let closed: Promise<void> | null = null
  let started = false
  let secretsKey: SecretsKey
  try {
    secretsKey = SecretsKey.load(dataDir)
  } catch (error) {
    await database.close().catch(() => {})
    throw error
  }
  const keyFromEnv = secretsKey.source === SECRETS_KEY_ENV
  const connections = new Connections({ repo: new ConnectionValueRepository(db, database.dialect), key: secretsKey, events, now })
  memory = new Memory({ repo: new MemoryRepository(db, database.dialect), clock, limits: config.memory })
  learnings = new Learnings({
    repo: new LearningRepository(db),
    leases: new LeaseRepository(db),
    events,
    clock,
    managerId,
    logger,
    resolveAgent: (label) => catalog!.resolveAgent(label),
  })
  const retention = new AuditRetention({
    repo: auditRepo,
    leases: new LeaseRepository(db),
    settings: new SettingsRepository(db),
    events,
    policy: config.audit,
    clock,
    managerId,
    logger,
  })
  const memoryOf = memory
  const learningsOf = learnings
  edges = new Edges({
    repo: new EdgeRepository(db),
    registry,
    events,
    managerId,
    logger,
    heartbeatMs: config.edges.heartbeatMs,
    maxInFlight: config.edges.maxInFlight,
    ...(database.listen && { signal: (message) => sql`select pg_notify(${EDGE_CHANNEL}, ${JSON.stringify(message)})`.execute(db).then(() => {}) }),
    managerAlive: (id) => liveness.isAlive(id),
    // The start-up refresh registers what edges offered before; later changes sync the catalog.
    onSkillsChanged: () => {
      if (started && closed === null) sync().catch((error) => logger.warn({ err: error }, 'catalog sync after an edge skill change failed'))
    },
    now,
    tokenNow: () => clock().toISOString(),
    // Through the connections: after a rotation, relayed calls are sealed with the new key.
    sealer: { seal: (value, boundTo) => connections.key.seal(value, boundTo), open: (sealed, boundTo) => connections.key.open(sealed, boundTo) },
  })
  discovery = new Discovery({
    registry,
    catalog,
    policies,
    edges,
    connectionState: (skill, { caller, agentId }) => connections.state(skill, subjectsOf(caller, agentId, null)),
    instructions: () => sources.instructions.library,
    repo: new DiscoveryRepository(db),
    audit: auditRepo,
    logger,
    halfLifeMs: config.discovery.usageHalfLifeDays * 24 * 60 * 60 * 1000,
    ...(config.discovery.embedding && { embedder: createEmbedder(config.discovery.embedding) }),
  })
  let listener: Listener | undefined
  let services: RunningServices | undefined
  let recoveredCalls = 0
  let startupSync: SyncReport | null = null
  let seal: ApprovalSeal
  const backlogDir = join(dataDir, 'audit-backlog')
  try {
    // Seen by a rotation before this manager checks the key: one rotating now either refuses or moves the fingerprint first.
    await liveness.beat()
    liveness.beatWhileStarting()
    // Before anything runs with secrets (MCP servers connect with them): a manager with another key stops here.
    const settingsRepo = new SettingsRepository(db)
    await agreeOnFingerprint(settingsRepo, 'secrets_key_fingerprint', secretsKey, {
      what: 'secrets key',
      sealed: "this database's secrets are encrypted with",
      file: 'secrets-key',
      env: SECRETS_KEY_ENV,
    })
    await connections.refresh()
    // Finished rows kept through an outage by a stopped manager land before recovery judges its calls.
    const replayed = await AuditBacklog.replay(backlogDir, auditRepo)
    if (replayed > 0) logger.warn({ rows: replayed }, 'wrote the finished audit rows a stopped manager had kept during a database outage')
    recoveredCalls = await liveness.recover()
    // Before the sources: an MCP server or HTTP skill may need what a service provides.
    if (options.services) services = await startServices(config.services, logger)
    await sources.start()
    await liveness.beat()
    listener = await database.listen?.(
      EDGE_CHANNEL,
      (payload) => edges!.receive(payload),
      () => void edges!.refresh(),
    )
    await retention.recordPolicy()
    if (options.sync) startupSync = await sync()
    await watch.look()
    await Promise.all([catalog.refresh(), policies.refresh(), discovery.refresh()])
    registry.reapplyClasses()
    seal = ApprovalSeal.load(dataDir)
    await agreeOnFingerprint(settingsRepo, 'approval_secret_fingerprint', seal, {
      what: 'approval secret',
      sealed: "this database's approvals are sealed with",
      file: 'approval-secret',
      env: SECRET_ENV,
    })
  } catch (error) {
    liveness.stop()
    await discovery.close()
    await sources.close()
    await services?.stop()
    await listener?.close()
    await liveness.leave()
    await database.close().catch(() => {})
    throw error
  }
  started = true
  // Surfaces that hold tool lists (MCP sessions) hear about changes, coalesced.
  const changes = new ChangeNotifier(logger)
  registry.onChange = () => {
    discovery.markDirty()
    changes.changed()
  }
  catalog.onChange = (skills) => {
    registry.reapplyClasses(skills)
    discovery.markDirty()
    changes.changed()
  }
  policies.onChange = changes.changed
  // A secret set or deleted changes connection states in every tool list, and may be what a server waited for.
  connections.onChange = () => {
    changes.changed()
    sources.mcp.secretsChanged().catch((error) => logger.warn({ err: error }, 'reconnecting MCP servers after a secret change failed'))
  }

  const grants = new Grants(new GrantRepository(db), seal, events, policies, clock)
  const approvals = new Approvals(new ApprovalRepository(db, database.sqlite), seal, events, sops, notifier, grants, {
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
    grants,
    managerId,
    maxResultBytes: config.audit.maxResultBytes,
    approvalWaitMs: config.approvals.waitTimeoutMs,
    edges,
    connections,
    onCallOk: (call) => discovery.observe(call),
    callServices: ({ callId, skill, caller, agentId, scrub }) => {
      const memory = memoryOf.as(caller.name)
      // Memory and learnings outlive the call and reach other callers and prompts: the call's secrets are scrubbed first.
      const clean = <T>(value: T): T => (scrub.size > 0 ? (scrubValue(value, scrub) as T) : value)
      return {
        memory: {
          get: (key, options) => memory.get(key, options),
          set: (key, value, options) => memory.set(clean(key), clean(value), options),
          delete: (key, options) => memory.delete(key, options),
          list: (prefix, options) => memory.list(prefix, options),
        },
        learn: (learning) => learningsOf.record(clean(learning), { skill, agentId, callId, caller: { id: caller.id, name: caller.name } }),
      }
    },
  })
  // `skills add`, `update` and `remove` in another process rewrite the managed lockfile: its skills are loaded again and synced.
  const reloadInstalled = async () => {
    sources.instructions.reloadNow()
    discovery.markDirty()
    changes.changed()
    await sync()
  }
  const installer = new SkillInstaller({
    target: managedTarget(dataDir),
    now,
    settle: (_names, work) => work({ catalog, events, reload: reloadInstalled }),
  })
  // Catalog edits and policies made by other managers arrive with each heartbeat, reloaded only when their tables' versions moved.
  liveness.start(
    async () => {
      const moved = await watch.look()
      await Promise.all([
        sources.instructions.installedChanged() && reloadInstalled().catch((error) => logger.warn({ err: error }, 'loading the installed skills again failed')),
        moved('skills', 'agents', 'bindings') && catalog.refresh(),
        moved('policies') && policies.refresh(),
        edges.refresh(),
        connections.refresh(),
        // Discovery's evidence is no reason to skip the heartbeat's recovery and expiry.
        discovery.refresh().catch((error) => logger.warn({ err: error }, 'discovery could not load the evidence other managers stored')),
      ]).catch((error: unknown) => {
        watch.forget()
        throw error
      })
    },
    () =>
      Promise.all([
        approvals.expireDue(),
        // Housekeeping never holds up the heartbeat's own work.
        memoryOf.sweepDue().catch((error) => logger.warn({ err: error }, 'sweeping expired memory entries failed')),
        options.dailySweeps !== false && learningsOf.dailySweepDue().catch((error) => logger.warn({ err: error }, 'the daily learnings sweep failed')),
        options.dailySweeps !== false && retention.dailySweepDue().catch((error) => logger.warn({ err: error }, 'the daily audit retention sweep failed')),
      ]),
  )

  return {
    config,
    registry,
    catalog,
    keys,
    users,
    groups,
    sessions,
    policies,
    approvals,
    grants,
    sops,
    events,
    runRecords,
    instructions: sources.instructions.library,
    get packFindings() {
      return sources.packs.findings
    },
    discovery,
    secrets: valueStore(connections, 'secret', (agent) => catalog!.resolveAgent(agent)),
    settings: valueStore(connections, 'setting', (agent) => catalog!.resolveAgent(agent)),
    memory,
    learnings,
    connectionState: (skill, { caller, agentId, onBehalfOf }) => connections.state(skill, subjectsOf(caller, agentId, onBehalfOf)),
    async reloadSources() {
      const reloaded = await sources.reload()
      discovery.markDirty()
      // An instruction skill's new files change no registered skill: tool lists are told anyway.
      changes.changed()
      return { ...reloaded, sources: sources.report(), sync: await sync() }
    },
    edges,
    mcpServers: () => sources.mcp.status(),
    connectMcp: () => sources.mcp.connectIdle(),
    async rotateSecretsKey(by) {
      const busy = (peers: Array<{ hostname: string; pid: number }>) =>
        new StoreError(
          `other managers are running on this database (${peers.map((p) => `${p.hostname} pid ${p.pid}`).join(', ')}): stop them, rotate, then start each with the new key`,
        )
      const peers = await liveness.peers()
      if (peers.length > 0) throw busy(peers)
      const next = SecretsKey.generate()
      // Written before the commit either way: a crash right after it must not take the only copy of the new key.
      const staged = next.stage(dataDir)
      let counts
      try {
        counts = await connections.rotateKey(
          next,
          'secrets_key_fingerprint',
          // Again inside the transaction: a manager that started since the look above still runs on the old key.
          async (trx) => {
            const late = await liveness.peers(new ManagerRepository(trx))
            if (late.length > 0) throw busy(late)
          },
          by,
        )
      } catch (error) {
        staged.discard()
        throw error
      }
      // A key from the environment stays in the environment: the staged file is where the new one waits to be set there.
      if (!keyFromEnv) staged.commit()
      return { ...counts, fingerprint: next.fingerprint(), keyFile: keyFromEnv ? staged.staged : staged.file, key: keyFromEnv ? next.hex() : null }
    },
    onSkillsChanged: (listener) => changes.subscribe(listener),
    skillsVersion: () => changes.version,
    sources: () => sources.report(),
    templateView: view,
    installSkills: (request, by) => installer.install(request, by),
    rollbackSkill: (name, by) => installer.rollback(name, by),
    shareSkill: (key, sharing, by) =>
      shareSkill(
        { catalog, users, events, exists: (k) => registry.get(k) !== undefined || sources.instructions.library.get(k) !== undefined, now },
        key,
        sharing,
        by,
      ),
    exportSkills: (caller, agentId) =>
      buildExport({ library: sources.instructions.library, catalog, templateView: view, categories: sources.categories() }, caller, agentId),
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
    get auditQueue() {
      return writer.depth
    },
    onCallFinished: (listener) => writer.onFinish((row) => listener({ skill: row.skill_key, status: row.status, durationMs: row.duration_ms })),
    checkDatabase: () => checkDatabase(db, logger),
    invoke: (key, input, invokeOptions) => pipeline.invoke(key, input, invokeOptions),
    sync,
    audit: {
      query: async (query) => {
        const page = await auditRepo.query(query)
        return { items: page.items.map(toAuditEntry), nextCursor: page.nextCursor }
      },
      get: async (callId) => {
        const row = await auditRepo.get(callId)
        return row && toAuditEntry(row)
      },
      histogram: async ({ bucket, from, to, ...filters }) => {
        const plan = planHistogram({ from, to, bucket }, now())
        if (!plan.ok) return plan
        return { ok: true, histogram: fillHistogram(plan, await auditRepo.histogram({ ...filters, from: plan.from, to: plan.to, prefix: plan.prefix })) }
      },
      async *pages(range) {
        let after: string | null = null
        for (;;) {
          const rows = await auditRepo.page({ from: range.since, to: range.until, after, limit: 500 })
          if (rows.length > 0) yield rows.map(toAuditEntry)
          if (rows.length < 500) return
          after = rows[rows.length - 1]!.call_id
        }
      },
      sweep: (by) => retention.sweep(by),
      dailySweep: () => retention.dailySweep(),
    },
    now,
    close() {
      closed ??= (async () => {
        liveness.stop()
        changes.close()
        await pipeline.close()
        // Edges first: the hub closes its tunnels before the listener that relays to them.
        await sources.close()
        await listener?.close()
        await services?.stop()
        await syncing
        await discovery!.close()
        // Webhook retries get a short grace at shutdown; they never hold the process for long.
        await Promise.all([writer.drain(), Promise.race([notifier.drain(), new Promise((r) => setTimeout(r, 2_000).unref())])])
        // Rows still refused stay in the backlog file for the next start.
        await backlog.flush()
        backlog.close()
        processGroups.close()
        await liveness.leave()
        await database.close()
      })()
      return closed
    },
  }
}

/**
 * The first manager records its key's fingerprint; every later one must hold the same key, or
 * stop before it seals or opens anything the others could not read.
 */
async function agreeOnFingerprint(
  settings: SettingsRepository,
  setting: string,
  key: { fingerprint(): string; source: string },
  words: { what: string; sealed: string; file: string; env: string },
): Promise<void> {
  const agreed = await settings.getOrInit(setting, key.fingerprint())
  if (agreed === key.fingerprint()) return
  const same = words.what.endsWith('key') ? 'key' : 'secret'
  throw new StoreError(
    `the ${words.what} in ${key.source} is not the one ${words.sealed} ` +
      `(fingerprint ${key.fingerprint()}, expected ${agreed}): managers sharing a database need the same ${same}; ` +
      `copy ${words.file} from the first manager's data dir, or set ${words.env} on all of them`,
  )
}
