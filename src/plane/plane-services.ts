import { join } from 'node:path'
import type { Logger } from 'pino'
import * as store from '../store/index.js'
import { AuditEvents, AuditRetention } from '../audit/index.js'
import { createPeople } from '../accounts/index.js'
import { Catalog } from '../registry/index.js'
import type { ResolvedConfig } from '../config/index.js'
import { Policies, Sops, WebhookNotifier } from '../policy/index.js'
import { ProcessGroups } from '../system/index.js'
import { Connections, SecretsKey } from '../connections/index.js'
import { Memory } from '../memory/index.js'
import { OAuthConnections, OAuthUnavailableError, ProviderFlow } from '../oauth/index.js'
import { Learnings } from '../learnings/index.js'
import { Liveness } from './liveness.js'
import type { Shutdown } from './shutdown.js'

/** What every part of a plane is built with. */
export interface PlaneSettings {
  config: ResolvedConfig
  logger: Logger
  dataDir: string
  managerId: string
  /** The time memory TTLs, learning decay and edge token lifetimes are measured against. */
  clock(): Date
  now(): string
  shutdown: Shutdown
}

export type PlaneServices = ReturnType<typeof createServices>

/** The services on the open store: audit events, people, catalog, policy, secrets, memory, learnings, retention, liveness. */
export function createServices(database: store.OpenedDatabase, s: PlaneSettings) {
  const { db, dialect } = database
  const { config, logger, dataDir, managerId, clock, now, shutdown } = s
  const auditRepo = new store.AuditRepository(db, database.sqlite)
  const runRecords = new store.RunRepository(db)
  const settings = new store.SettingsRepository(db)
  const leases = new store.LeaseRepository(db)
  const events = new AuditEvents(new store.EventRepository(db))
  const catalog = new Catalog(new store.CatalogRepository(db), new store.CatalogChangeRepository(db))
  const resolveAgent = (label: string) => catalog.resolveAgent(label)
  const people = createPeople({
    users: new store.UserRepository(db),
    keys: new store.KeyRepository(db),
    sessions: new store.SessionRepository(db),
    record: events.record.bind(events),
    now,
  })
  const processGroups = new ProcessGroups(join(dataDir, 'process-groups'), managerId)
  shutdown.on('processes', () => processGroups.close())
  const managers = new store.ManagerRepository(db)
  const liveness = new Liveness({ managerId, managers, audit: auditRepo, runs: runRecords, processGroupsDir: processGroups.dir, logger, now })
  shutdown.on('liveness', () => liveness.leave())
  shutdown.on('heartbeat', () => liveness.stop())
  const secretsKey = SecretsKey.load(dataDir)
  const connections = new Connections({ repo: new store.ConnectionValueRepository(db, dialect), key: secretsKey, events, now })
  const oauth = new OAuthConnections({
    repo: new store.OAuthRepository(db),
    key: () => connections.key,
    events,
    now: clock,
    linkTtlMs: config.oauth.linkTtlMs,
    publicUrl: config.http.publicUrl,
    settings,
    signInRequired: config.auth.oidc !== undefined,
    isActive: async (user) => (await people.users.row(user))?.disabled_at == null,
    warn: (message) => logger.warn(message),
  })
  for (const [name, provider] of Object.entries(config.oauth.providers)) {
    const secretName = provider.clientSecret?.secret
    oauth.register(
      new ProviderFlow(name, provider, async () => {
        if (secretName === undefined) return undefined
        const value = (await connections.resolve({ secrets: [secretName], settings: [] }, { agent: null, user: null })).secrets.get(secretName)
        if (value === undefined)
          throw new OAuthUnavailableError(`the OAuth provider ${name}'s client secret ${secretName} is not set: skillplane secrets set ${secretName}`)
        return value
      }),
    )
  }
  return {
    ...people,
    auditRepo,
    callTrees: new store.CallTreeRepository(db),
    // Stream events are sealed with the key secrets are, the current one after a rotation.
    mcpSessions: new store.McpSessionRepository(db, () => connections.key, database.sqlite),
    runRecords,
    settings,
    events,
    catalog,
    activations: new store.ActivationRepository(db),
    policies: new Policies(new store.PolicyRepository(db), events, resolveAgent),
    sops: new Sops(new store.SopRepository(db), config.sopKeys, events),
    notifier: new WebhookNotifier(config.approvals.webhookUrl, logger),
    processGroups,
    liveness,
    secretsKey,
    connections,
    oauth,
    memory: new Memory({ repo: new store.MemoryRepository(db, dialect), clock, limits: config.memory }),
    learnings: new Learnings({ repo: new store.LearningRepository(db), leases, events, clock, managerId, logger, resolveAgent }),
    retention: new AuditRetention({
      repo: auditRepo,
      stats: new store.CallStatsRepository(db),
      leases,
      settings,
      events,
      policy: config.audit,
      clock,
      managerId,
      logger,
    }),
  }
}
