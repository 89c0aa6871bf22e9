import type { OAuthConnections } from '../oauth/index.js'
import { setImmediate as nextTurn } from 'node:timers/promises'
import type { Logger } from 'pino'
import type { Catalog } from '../registry/index.js'
import type { Policies, Approvals } from '../policy/index.js'
import type { Edges } from '../sources/edge/index.js'
import type { Connections } from '../connections/index.js'
import type { Discovery } from '../discovery/index.js'
import type { Memory } from '../memory/index.js'
import type { Learnings } from '../learnings/index.js'
import type { AuditRetention } from '../audit/index.js'
import type { ChangeWatch } from './change-watch.js'

export interface HeartbeatParts {
  watch: Pick<ChangeWatch, 'look' | 'forget'>
  catalog: Pick<Catalog, 'refresh'>
  policies: Pick<Policies, 'refresh'>
  edges: Pick<Edges, 'refresh'>
  connections: Pick<Connections, 'refresh'>
  oauth: Pick<OAuthConnections, 'refresh'>
  discovery: Pick<Discovery, 'refresh'>
  approvals: Pick<Approvals, 'expireDue'>
  memory: Pick<Memory, 'sweepDue'>
  learnings: Pick<Learnings, 'dailySweepDue'>
  retention: Pick<AuditRetention, 'dailySweepDue'>
  /** Whether skills were installed, updated or removed in the data dir by another process, and loading them again. */
  installed: { changed(): boolean; reload(): Promise<void> }
  /** Whether this manager takes part in the daily sweeps under their leases. */
  dailySweeps: boolean
  logger: Logger
}

/**
 * Run every step, each in a turn of the event loop of its own: with the SQLite driver a query
 * answers at once, so steps chained by promises alone would hold the loop for the whole heartbeat.
 * Every step runs even when one fails; the first failure is thrown at the end.
 */
export async function stepByStep(steps: ReadonlyArray<() => unknown>): Promise<void> {
  let failure: { error: unknown } | undefined
  for (const step of steps) {
    await nextTurn()
    try {
      await step()
    } catch (error) {
      failure ??= { error }
    }
  }
  if (failure) throw failure.error
}

/** What each heartbeat does beside beating: pick up other managers' changes, then the housekeeping after recovery. */
export function heartbeatTasks(p: HeartbeatParts): { refresh(): Promise<unknown>; afterRecovery(): Promise<unknown> } {
  const warn = (what: string) => (error: unknown) => p.logger.warn({ err: error }, what)
  return {
    // Catalog edits and policies made by other managers arrive with each heartbeat, reloaded only when their tables' versions moved.
    async refresh() {
      const moved = await p.watch.look()
      await stepByStep([
        () => p.installed.changed() && p.installed.reload().catch(warn('loading the installed skills again failed')),
        () => moved('skills', 'agents', 'bindings') && p.catalog.refresh(),
        () => moved('policies') && p.policies.refresh(),
        () => p.edges.refresh(),
        () => p.connections.refresh(),
        () => p.oauth.refresh(),
        // Discovery's evidence is no reason to skip the heartbeat's recovery and expiry.
        () => p.discovery.refresh().catch(warn('discovery could not load the evidence other managers stored')),
      ]).catch((error: unknown) => {
        p.watch.forget()
        throw error
      })
    },
    afterRecovery: () =>
      stepByStep([
        () => p.approvals.expireDue(),
        // Housekeeping never holds up the heartbeat's own work.
        () => p.memory.sweepDue().catch(warn('sweeping expired memory entries failed')),
        () => p.dailySweeps && p.learnings.dailySweepDue().catch(warn('the daily learnings sweep failed')),
        () => p.dailySweeps && p.retention.dailySweepDue().catch(warn('the daily audit retention sweep failed')),
      ]),
  }
}
