import { ManagerRepository, type OpenedDatabase, type WaitFacts } from '../store/index.js'
import { subjectsOf } from '../runtime/index.js'
import { buildExport } from '../sources/agent-skills/index.js'
import { rotateSecretsKey, SECRETS_KEY_ENV } from '../connections/index.js'
import type { AuditReader } from '../audit/index.js'
import type { SyncReport } from '../registry/index.js'
import type { Plane, PlaneApprovals, PlaneSkills } from './plane.js'
import type { PlaneServices, PlaneSettings } from './plane-services.js'
import type { PlaneSkillParts } from './load-skills.js'
import type { CallPath } from './call-path.js'
import type { SkillInstaller } from '../install/index.js'
import type { ChangeNotifier } from './change-notifier.js'
import { valueStore } from './value-store.js'
import { connectionState } from './connection-state.js'
import { checkDatabase } from './check-database.js'
import { shareSkill } from './share-skill.js'
import { completeImported } from '../sources/mcp/index.js'

/** The parts `createPlane` built, which the facade exposes through its named interfaces. */
export type PlaneParts = PlaneSettings &
  PlaneServices &
  PlaneSkillParts &
  CallPath & {
    database: OpenedDatabase
    changes: ChangeNotifier
    installer: SkillInstaller
    audit: AuditReader
    startupSync: SyncReport | null
    recoveredCalls: number
  }

/** The plane as surfaces and programs see it: each part behind a named interface that offers only what they use. */
export function planeFacade(p: PlaneParts): Plane {
  const { catalog, sources, connections, now } = p
  return {
    config: p.config,
    logger: p.logger,
    invoke: (key, input, options) => p.pipeline.invoke(key, input, options),
    skills: skillsOf(p),
    agents: {
      resolve: (label) => catalog.resolveAgent(label),
      get: (id) => catalog.agent(id),
      list: () => catalog.agents(),
      boundSkills: (agentId) => catalog.boundSkills(agentId),
    },
    approvals: approvalsOf(p),
    policies: p.policies,
    audit: {
      ...p.audit,
      events: p.events,
      onCallFinished: (listener) => p.writer.onFinish((row) => listener({ skill: row.skill_key, status: row.status, durationMs: row.duration_ms })),
      onApprovalWaited: (listener) => {
        const forward = (wait: WaitFacts) => listener({ skill: wait.skill_key, seconds: wait.seconds })
        p.waited.add(forward)
        return () => p.waited.delete(forward)
      },
    },
    people: { keys: p.keys, users: p.users, groups: p.groups, sessions: p.sessions, mcpSessions: p.mcpSessions },
    values: {
      secrets: valueStore(connections, 'secret', (agent) => catalog.resolveAgent(agent)),
      settings: valueStore(connections, 'setting', (agent) => catalog.resolveAgent(agent)),
      memory: p.memory,
      learnings: p.learnings,
      rotateSecretsKey: (by) =>
        rotateSecretsKey(
          {
            connections,
            dataDir: p.dataDir,
            keyFromEnv: p.secretsKey.source === SECRETS_KEY_ENV,
            peers: (db) => p.liveness.peers(db && new ManagerRepository(db)),
          },
          by,
        ),
    },
    sources: {
      report: () => sources.report(),
      async reload() {
        const reloaded = await sources.reload()
        p.discovery.markDirty()
        // An instruction skill's new files change no registered skill: tool lists are told anyway.
        p.changes.changed()
        return { ...reloaded, sources: sources.report(), sync: await p.catalogSync.run() }
      },
      get packFindings() {
        return sources.packs.findings
      },
      mcpServers: () => sources.mcp.status(),
      mcpResources: () => sources.mcp.resources(),
      mcpResourceOwner: (uri, usable, personal) => sources.mcp.resourceOwner(uri, usable, personal),
      mcpPersonResources: (subject, usable) => sources.mcp.personResources(subject, usable),
      mcpPersonSkills: (kind) => sources.mcp.personSkills(kind),
      subscribeMcpResource: (server, uri, options, listener) => sources.mcp.subscribe(server, uri, options, listener),
      connectMcp: () => sources.mcp.connectIdle(),
      mcpPrompts: () => sources.mcp.prompts(),
      mcpPersonPrompts: (subject, usable) => sources.mcp.personPrompts(subject, usable),
      onMcpPersonListChanged: (listener) => sources.mcp.onPersonListChanged(listener),
      mcpComplete: (server, params, options) =>
        completeImported(
          { mcp: sources.mcp, registry: p.registry, access: { skills: catalog, policies: p.policies, sources: { edges: p.edges } } },
          server,
          params,
          options,
        ),
      edges: p.edges,
    },
    oauth: p.oauth,
    status: {
      dialect: p.database.dialect,
      location: p.database.location,
      dataDir: p.dataDir,
      managerId: p.managerId,
      managerAlive: (id) => p.liveness.isAlive(id),
      startupSync: p.startupSync,
      recoveredCalls: p.recoveredCalls,
      get auditBacklog() {
        return p.backlog.size
      },
      get auditQueue() {
        return p.writer.depth
      },
      checkDatabase: () => checkDatabase(p.database.db, p.logger),
    },
    now,
    stopAccepting: () => p.shutdown.stopAccepting(),
    close: () => p.shutdown.run(),
  }
}

function skillsOf(p: PlaneParts): PlaneSkills {
  const { catalog, registry, sources, connections, now } = p
  const instructions = sources.instructions.library
  return {
    get: (key) => registry.get(key),
    list: () => registry.list(),
    get count() {
      return registry.ownCount
    },
    register: (definition, options) => registry.register(definition, options),
    row: (key) => catalog.row(key),
    classOverride: (key) => catalog.classOverride(key),
    isEnabled: (key) => catalog.isEnabled(key),
    isBound: (agentId, key) => catalog.isBound(agentId, key),
    agentsBoundTo: (key) => catalog.agentsBoundTo(key),
    sharing: (key) => catalog.sharing(key),
    risks: (key) => catalog.risks(key),
    edit: (key, edit, at) => catalog.edit(key, edit, at),
    setRisks: (key, risks, at) => catalog.setRisks(key, risks, at),
    refresh: () => catalog.refresh(),
    sync: (options) => p.catalogSync.run(options),
    share: (key, sharing, by) =>
      shareSkill(
        { catalog, users: p.users, events: p.events, exists: (k) => registry.get(k) !== undefined || instructions.get(k) !== undefined, now },
        key,
        sharing,
        by,
      ),
    install: (request, by) => p.installer.install(request, by),
    rollback: (name, by) => p.installer.rollback(name, by),
    onChanged: (listener) => p.changes.subscribe(listener),
    version: () => p.changes.version,
    connectionState: (skill, { caller, agentId, onBehalfOf }) => connectionState(connections, p.oauth, skill, subjectsOf(caller, agentId, onBehalfOf)),
    instructions,
    templateView: p.view,
    export: (caller, agentId) => buildExport({ library: instructions, catalog, templateView: p.view, categories: sources.categories() }, caller, agentId),
    discovery: p.discovery,
  }
}

function approvalsOf(p: PlaneParts): PlaneApprovals {
  const { approvals } = p
  return {
    get: (id) => approvals.get(id),
    list: (query) => approvals.list(query),
    ofConversation: (id, limit) => approvals.ofConversation(id, limit),
    decide: (input) => approvals.decide(input),
    withdraw: (id, reason) => approvals.withdraw(id, reason),
    pendingCount: () => approvals.pendingCount(),
    onSettled: (listener) => approvals.onSettled(listener),
    checkSop: (id, sopId) => approvals.checkSop(id, sopId),
    grants: p.grants,
    sops: p.sops,
  }
}
