import { join } from 'node:path'
import * as store from '../store/index.js'
import { AuditWriter, AuditBacklog } from '../audit/index.js'
import { Pipeline } from '../runtime/index.js'
import { Approvals, Grants, type ApprovalSeal } from '../policy/index.js'
import { callMemory } from '../memory/index.js'
import { callLearn } from '../learnings/index.js'
import type { PlaneServices, PlaneSettings } from './plane-services.js'
import type { PlaneSkillParts } from './load-skills.js'

export type CallPath = ReturnType<typeof createCallPath>

/** Where finished audit rows wait through a database outage, for this manager or the next to start. */
export const backlogDir = (dataDir: string): string => join(dataDir, 'audit-backlog')

/** The one way a skill runs: grants and approvals for the gate, the audit writer with its backlog, the pipeline. */
export function createCallPath(database: store.OpenedDatabase, services: PlaneServices, skills: PlaneSkillParts, seal: ApprovalSeal, s: PlaneSettings) {
  const { db } = database
  const { config, logger, managerId, clock, dataDir, shutdown } = s
  const { auditRepo, events, policies, sops, notifier, catalog, connections, oauth, memory, learnings } = services
  // Approval waits go to the health stats and to whoever listens (the metrics).
  const waited = new Set<(wait: store.WaitFacts) => void>()
  const grants = new Grants(new store.GrantRepository(db), seal, events, policies, clock)
  const approvals = new Approvals(new store.ApprovalRepository(db, database.sqlite), seal, events, sops, notifier, grants, {
    expiresAfterMs: config.approvals.expiresAfterMs,
    pollMs: 1_000,
    hasRun: (approvalId) => auditRepo.ranWithApproval(approvalId),
    onWaited: (wait) => {
      auditRepo.countWait(wait)
      for (const listener of waited) listener(wait)
    },
  })
  const backlog = new AuditBacklog(backlogDir(dataDir), managerId, auditRepo, logger)
  // Rows still refused stay in the backlog file for the next start.
  shutdown.on('backlog', async () => {
    await backlog.flush()
    backlog.close()
  })
  const writer = new AuditWriter(auditRepo, backlog)
  // Webhook retries get a short grace at shutdown; they never hold the process for long.
  shutdown.on('writes', () =>
    Promise.all([writer.drain().then(() => auditRepo.flushStats()), Promise.race([notifier.drain(), new Promise((r) => setTimeout(r, 2_000).unref())])]),
  )
  const pipeline = new Pipeline({
    registry: skills.registry,
    catalog,
    audit: writer,
    logger,
    policies,
    approvals,
    grants,
    managerId,
    edges: skills.edges,
    connections,
    oauth,
    maxResultBytes: config.audit.maxResultBytes,
    approvalWaitMs: config.approvals.waitTimeoutMs,
    stopping: () => shutdown.closing,
    onCallOk: (call) => skills.discovery.observe(call),
    callServices: ({ callId, skill, caller, agentId, scrub }) => ({
      memory: callMemory(memory, caller.name, scrub),
      learn: callLearn(learnings, { skill, agentId, callId, caller: { id: caller.id, name: caller.name } }, scrub),
    }),
  })
  shutdown.on('pipeline', () => pipeline.close())
  return { grants, approvals, backlog, writer, pipeline, waited }
}
