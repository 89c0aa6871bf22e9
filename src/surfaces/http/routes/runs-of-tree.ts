import type { RunShown } from '../../../access/index.js'
import type { CallTree } from '../../../audit/index.js'

/** The runs of a tree and their agents (a run span's name), with what the steps of `run` (when given) show of its calls. */
export function runsOfTree(
  tree: CallTree,
  run?: { id: string; agent: string; steps?: Array<{ callId?: string; approvalId?: string }> },
): Map<string, RunShown> {
  const runs = new Map<string, RunShown>()
  for (const span of tree.spans) {
    if (span.kind === 'run' && span.runId !== undefined) runs.set(span.runId, { agent: span.name, callIds: new Set(), approvalIds: new Set() })
  }
  if (run) {
    const steps = run.steps ?? []
    const approvalIds = new Set(steps.flatMap((s) => (s.approvalId ? [s.approvalId] : [])))
    // A step shows the call that ran; the call its approval was asked for is the same step's, earlier.
    const asked = tree.spans.flatMap((s) => (s.kind === 'approval' && s.callId !== undefined && approvalIds.has(s.approvalId!) ? [s.callId] : []))
    runs.set(run.id, { agent: run.agent, callIds: new Set([...steps.flatMap((s) => (s.callId ? [s.callId] : [])), ...asked]), approvalIds })
  }
  return runs
}
