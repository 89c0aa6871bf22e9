import { inputHash, type EffectiveDecision } from '../../policy/index.js'
import type { Call } from '../call.js'
import type { ApprovalWait } from '../invoke-options.js'
import type { StageDeps } from '../stage.js'

/** What the gate asks approval for: the same for every decision it makes about one call. */
export interface ApprovalAsk {
  policy: EffectiveDecision
  reason: string
  /** Approvals are bound to this: the exact input, and the edge it runs on. */
  hash: string
  wait: ApprovalWait | undefined
  /** How long waiting waits: what the caller asked, never more than configured. */
  waitMs: number
}

export function approvalAsk(call: Call, deps: StageDeps, policy: EffectiveDecision, reason: string): ApprovalAsk {
  const { approval, edge } = call
  // The same input on another edge is another call: it needs its own approval.
  const hash = inputHash(call.skill.key, edge ? { input: call.value, edge: edge.id } : call.value)
  const wait = approval.mode === 'check' ? undefined : approval.wait
  const waitMs = typeof wait === 'number' ? Math.min(wait * 1000, deps.approvalWaitMs) : deps.approvalWaitMs
  return { policy, reason, hash, wait, waitMs }
}
