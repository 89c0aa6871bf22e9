import { sql } from 'kysely'
import * as store from '../store/index.js'
import { Registry, CatalogSync } from '../registry/index.js'
import { providerNames } from '../config/index.js'
import { subjectsOf } from '../runtime/index.js'
import type { Caller, SkillDefinition } from '../skill/index.js'
import { Edges } from '../sources/edge/index.js'
import { Discovery, createEmbedder } from '../discovery/index.js'
import type { PlaneServices, PlaneSettings } from './plane-services.js'
import { codeSkills } from './code-skills.js'
import { SkillSources } from '../sources/source-list/index.js'
import { installedFolder } from '../install/index.js'
import { templateView } from './template-view.js'

// The PostgreSQL channel managers signal each other on about edges and relayed calls.
export const EDGE_CHANNEL = 'skillplane_edges'

export interface SkillLoading {
  /** False: load no folder, document or server (a plane that only opens the store). */
  load: boolean
  builtIns: Array<{ definition: SkillDefinition; origin: string }>
  /** Connect the MCP servers at start (waiting for each first attempt); otherwise each connects on its first call. */
  connectMcp: boolean
  /** Whether a change a source makes in the background now syncs the catalog (the plane has started, and is not closing). */
  running(): boolean
}

export type PlaneSkillParts = ReturnType<typeof loadSkills>

/**
 * The registry and what fills it: code skills and built-ins first (their names are taken), then
 * pack and SKILL.md folders, HTTP skills and OpenAPI documents, MCP servers; edges register as
 * they connect. Discovery indexes them all; the catalog sync makes the store match.
 */
export function loadSkills(database: store.OpenedDatabase, services: PlaneServices, s: PlaneSettings, loading: SkillLoading) {
  const { db } = database
  const mcpTools = new store.McpToolRepository(db)
  const { config, logger, dataDir, managerId, clock, now, shutdown } = s
  const { catalog, policies, events, connections, liveness } = services
  const registry = new Registry({ defaultTimeoutMs: config.defaults.timeoutMs })
  registry.classOverride = (key) => catalog.classOverride(key)
  const edges = new Edges({
    repo: new store.EdgeRepository(db, database.sqlite),
    registry,
    events,
    managerId,
    logger,
    now,
    tokenNow: () => clock().toISOString(),
    heartbeatMs: config.edges.heartbeatMs,
    maxInFlight: config.edges.maxInFlight,
    managerAlive: (id) => liveness.isAlive(id),
    ...(database.listen && { signal: (message) => sql`select pg_notify(${EDGE_CHANNEL}, ${JSON.stringify(message)})`.execute(db).then(() => {}) }),
    // The start-up refresh registers what edges offered before; later changes sync the catalog.
    onSkillsChanged: () => loading.running() && catalogSync.inBackground('an edge skill change'),
    // Through the connections: after a rotation, relayed calls are sealed with the new key.
    sealer: { seal: (value, boundTo) => connections.key.seal(value, boundTo), open: (sealed, boundTo) => connections.key.open(sealed, boundTo) },
    providers: providerNames(config),
  })
  shutdown.on('edges', () => edges.close())
  const discovery: Discovery = new Discovery({
    registry,
    catalog,
    policies,
    edges,
    repo: new store.DiscoveryRepository(db),
    audit: services.auditRepo,
    logger,
    connectionState: (skill, { caller, agentId, onBehalfOf }) => connections.state(skill, subjectsOf(caller, agentId, onBehalfOf)),
    // Read from its first refresh on, when the sources below have loaded.
    instructions: () => sources.instructions.library,
    halfLifeMs: config.discovery.usageHalfLifeDays * 24 * 60 * 60 * 1000,
    // The plane's clock: tests move it to age what discovery learned.
    now: () => clock().getTime(),
    ...(config.discovery.embedding && { embedder: createEmbedder(config.discovery.embedding) }),
    ...(config.discovery.ranking && { ranking: config.discovery.ranking }),
    managerId,
  })
  shutdown.on('discovery', () => discovery.close())
  const view = (caller: Caller, agentId: string | null) => templateView({ registry, catalog, policies, vars: config.templateVars }, caller, agentId)
  const sources: SkillSources = new SkillSources({
    config,
    load: loading.load,
    registry,
    ...codeSkills({ config, edges, discovery, catalog, memory: services.memory, learnings: services.learnings, builtIns: loading.builtIns }),
    installed: installedFolder(dataDir),
    processGroups: services.processGroups,
    logger,
    catalog: () => catalog,
    activations: () => services.activations,
    templateView: (ctx) => view(ctx.caller, ctx.agent),
    mcp: {
      store: () => mcpTools,
      connect: loading.connectMcp,
      // Global values only: one connection serves every caller.
      secrets: async (names) => (await connections.resolve({ secrets: names, settings: [] }, { agent: null, user: null })).secrets,
      onChange: () => shutdown.closing || catalogSync.inBackground('an MCP tool change'),
      oauth: services.oauth,
      now,
    },
    edges: () => edges,
  })
  shutdown.on('sources', () => sources.close())
  const catalogSync = new CatalogSync({ db, catalog, entries: () => sources.entries(), agents: config.agents, enabled: loading.load, logger, now })
  shutdown.on('sync', () => catalogSync.drain())
  return { registry, edges, discovery, view, sources, catalogSync }
}
