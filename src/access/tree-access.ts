import type { Span } from '../audit/index.js'
import { can, maySeeAgent } from '../abilities/index.js'
import type { Caller } from '../skill/index.js'
import { runAccessRefusal } from './run-access.js'

/** What a run shows its readers of its own calls: the calls and approvals of its steps. */
export interface RunShown {
  agent: string
  callIds: ReadonlySet<string>
  approvalIds: ReadonlySet<string>
}

/**
 * Which spans of a call tree a caller may see: exactly what `GET /api/audit/{callId}` and
 * `GET /api/runs/{id}` would show it. A call (and what happened inside it) needs the audit,
 * unless it is a step of a run the caller may read; a run and its model steps need the run.
 * `runs` names the agent of each run in the tree.
 */
export function treeSpanAccess(caller: Caller, runs: ReadonlyMap<string, RunShown>): (span: Span) => boolean {
  const readsAudit = can(caller, 'readAudit')
  const readsRuns = runAccessRefusal(caller, '') === null
  const shownByRun = (test: (run: RunShown) => boolean) => readsRuns && [...runs.values()].some((run) => maySeeAgent(caller, run.agent) && test(run))
  return (span) => {
    if (span.kind === 'run' || span.kind === 'model') {
      const run = span.runId === undefined ? undefined : runs.get(span.runId)
      return run !== undefined && readsRuns && maySeeAgent(caller, run.agent)
    }
    if (readsAudit) return true
    if (span.kind === 'approval') return shownByRun((run) => run.approvalIds.has(span.approvalId!))
    // A remote span's call id is the other skillplane's: only its parent call's readers see it.
    return span.kind !== 'remote' && span.callId !== undefined && shownByRun((run) => run.callIds.has(span.callId!))
  }
}
