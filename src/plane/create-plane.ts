import { resolve } from 'node:path'
import { monotonicFactory } from 'ulid'
import { openDatabase, ChangeVersionRepository, CallStatsRepository, type RunRepository } from '../store/index.js'
import { AuditBacklog, AuditSearcher, auditReader } from '../audit/index.js'
import { resolveConfig, createLogger, startServices } from '../config/index.js'
import { ApprovalSeal, SECRET_ENV } from '../policy/index.js'
import { SECRETS_KEY_ENV, agreeOnFingerprint } from '../connections/index.js'
import type { Plane, PlaneOptions } from './plane.js'
import { Shutdown } from './shutdown.js'
import { createServices, type PlaneSettings } from './plane-services.js'
import { loadSkills, EDGE_CHANNEL } from './load-skills.js'
import { createCallPath, backlogDir } from './call-path.js'
import { ChangeWatch } from './change-watch.js'
import { ChangeNotifier } from './change-notifier.js'
import { heartbeatTasks } from './heartbeat.js'
import { planeFacade } from './plane-facade.js'
import { SkillInstaller, managedTarget } from '../install/index.js'

const managerIds = monotonicFactory()

/** Open the store, build the services on it, load the sources, start the pipeline, and start beating. */
export async function createPlane(options: PlaneOptions = {}): Promise<Plane> {
  return (await openPlane(options)).plane
}

/** The plane, and the store of agent runs for the runner built on it (`createSkillplane`): no part of the facade. */
export async function openPlane(options: PlaneOptions = {}): Promise<{ plane: Plane; runRecords: RunRepository }> {
  const logger = options.logger ?? createLogger('info')
  const dataDir = resolve(options.dataDir ?? '.skillplane')
  const config = await resolveConfig(options.config ?? {}, { dataDir }, options.configSource ?? '(inline)')
  const dailySweeps = options.dailySweeps !== false
  const shutdown = new Shutdown()
  const clock = options.clock ?? (() => new Date())
  const settings: PlaneSettings = { config, logger, dataDir, managerId: managerIds(), shutdown, clock, now: () => new Date().toISOString() }

  // The store, first: every part below is built on it.
  const database = await openDatabase({
    dataDir,
    databaseUrl: options.databaseUrl,
    // Long-lived planes (the ones that take part in daily sweeps) keep checkpoints off the call path.
    ...(dailySweeps && {
      walCheckpointer: { onError: (message: string) => logger.warn({ err: message }, 'the WAL checkpoint worker failed; checkpoints run inside commits') },
    }),
  })
  shutdown.on('database', () => database.close())
  try {
    // Services, then the skills every source registers.
    const services = createServices(database, settings)
    const { liveness, connections, catalog, policies, retention, settings: settingsRepo } = services
    let started = false
    const skills = loadSkills(database, services, settings, {
      load: options.sources !== false,
      builtIns: options.builtIns?.(config) ?? [],
      connectMcp: options.connectMcp ?? true,
      running: () => started && !shutdown.closing,
    })
    const { registry, edges, discovery, sources, catalogSync } = skills

    // Start: join the managers, agree on the keys, recover, connect the sources, read the shared state.
    // Seen by a rotation before this manager checks the key: one rotating now either refuses or moves the fingerprint first.
    await liveness.beat()
    liveness.beatWhileStarting()
    // Before anything runs with secrets (MCP servers connect with them): a manager with another key stops here.
    const secrets = { what: 'secrets key', sealed: "this database's secrets are encrypted with", file: 'secrets-key', env: SECRETS_KEY_ENV }
    await agreeOnFingerprint(settingsRepo, 'secrets_key_fingerprint', services.secretsKey, secrets)
    await Promise.all([connections.refresh(), services.oauth.refresh()])
    // Finished rows kept through an outage by a stopped manager land before recovery judges its calls.
    const replayed = await AuditBacklog.replay(backlogDir(dataDir), services.auditRepo)
    if (replayed > 0) logger.warn({ rows: replayed }, 'wrote the finished audit rows a stopped manager had kept during a database outage')
    const recoveredCalls = await liveness.recover()
    // Before the sources: an MCP server or HTTP skill may need what a service provides.
    const running = options.services ? await startServices(config.services, logger) : undefined
    shutdown.on('services', () => running?.stop())
    await sources.start()
    await liveness.beat()
    const listener = await database.listen?.(
      EDGE_CHANNEL,
      (payload) => edges.receive(payload),
      () => void edges.refresh(),
    )
    shutdown.on('listener', () => listener?.close())
    await retention.recordPolicy()
    const startupSync = options.sync ? await catalogSync.run() : null
    const watch = new ChangeWatch(new ChangeVersionRepository(database.db))
    await watch.look()
    await Promise.all([catalog.refresh(), policies.refresh(), discovery.refresh()])
    registry.reapplyClasses()
    const seal = ApprovalSeal.load(dataDir)
    const approvalSecret = { what: 'approval secret', sealed: "this database's approvals are sealed with", file: 'approval-secret', env: SECRET_ENV }
    await agreeOnFingerprint(settingsRepo, 'approval_secret_fingerprint', seal, approvalSecret)
    started = true

    // Surfaces that hold tool lists (MCP sessions) hear about changes, coalesced.
    const changes = new ChangeNotifier(logger)
    shutdown.on('notifier', () => changes.close())
    registry.onChange = () => {
      discovery.markDirty()
      changes.changed()
    }
    catalog.onChange = (keys) => {
      registry.reapplyClasses(keys)
      discovery.markDirty(keys)
      changes.changed()
    }
    policies.onChange = changes.changed
    // An imported server's resource list changed: /mcp sessions compare what they would list now.
    sources.mcp.onResourcesChanged = () => changes.changed()
    // A secret set or deleted changes connection states in every tool list, and may be what a server waited for.
    connections.onChange = () => {
      changes.changed()
      sources.mcp.secretsChanged().catch((error) => logger.warn({ err: error }, 'reconnecting MCP servers after a secret change failed'))
    }

    // A connection made (here or at another manager) changes connection states in every tool list.
    services.oauth.onConnected(() => changes.changed())

    // The pipeline, then the work of each heartbeat.
    const callPath = createCallPath(database, services, skills, seal, settings)
    // `skills add`, `update` and `remove` in another process rewrite the managed lockfile: its skills are loaded again and synced.
    const reloadInstalled = async () => {
      sources.instructions.reloadNow()
      discovery.markDirty()
      changes.changed()
      await catalogSync.run()
    }
    const installer = new SkillInstaller({
      target: managedTarget(dataDir),
      now: settings.now,
      settle: (_names, work) => work({ catalog, events: services.events, reload: reloadInstalled }),
    })
    const installed = { changed: () => sources.instructions.installedChanged(), reload: reloadInstalled }
    const beat = heartbeatTasks({ ...services, ...skills, ...callPath, watch, installed, dailySweeps, logger })
    liveness.start(beat.refresh, beat.afterRecovery)

    const searcher = new AuditSearcher(services.auditRepo, () =>
      catalog.agents().flatMap((agent) => [agent.name, ...agent.aliases].map((label) => ({ column: 'agent_id' as const, value: agent.id, label }))),
    )
    callPath.writer.onFinish((row) => searcher.saw(row))
    const audit = auditReader(services.auditRepo, retention, settings.now, searcher, services.callTrees, new CallStatsRepository(database.db))
    const plane = planeFacade({ ...settings, ...services, ...skills, ...callPath, database, changes, installer, audit, startupSync, recoveredCalls })
    return { plane, runRecords: services.runRecords }
  } catch (error) {
    return shutdown.abort(error)
  }
}
