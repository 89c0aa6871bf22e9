import type { Caller, CallerClient, ProgressUpdate } from '../skill/index.js'
import type { CallerSignal } from './call-cancel.js'

/** How long to wait for an approval decision: true for the configured time, or seconds (never longer). */
export type ApprovalWait = boolean | number

/**
 * What a call does about approval, as one value:
 * - `ask` (the default): when the gate says ASK, file a request (and wait for it with `wait`);
 * - `use`: run with this approved request, once, and only with the input it was approved for;
 * - `resume`: reuse this caller's open request for exactly this call (same skill, agent and
 *   input) instead of asking again, for callers that can only repeat a call (LLM tools);
 * - `check`: stop after the gate and run nothing: ok `{ wouldRun: true, approvalId }` when the call
 *   would run now, else approval_required (filing or finding the request; only a filed request is
 *   audited). It looks at `approvalId` or the caller's open request, never spends either. For
 *   surfaces that ask before calling (AI SDK tools).
 */
export type ApprovalMode =
  | { mode: 'ask'; wait?: ApprovalWait }
  | { mode: 'use'; approvalId: string; wait?: ApprovalWait }
  | { mode: 'resume'; wait?: ApprovalWait }
  | { mode: 'check'; approvalId?: string }

export interface InvokeOptions {
  caller: Caller
  /** Agent the call is made for: id, name or alias. An agent key always acts for its own agent. */
  agent?: string | null
  conversationId?: string | null
  edgeId?: string | null
  /** Aborting it cancels the call (e.g. the HTTP client went away). */
  signal?: CallerSignal
  /** Hears the executor's progress reports while this call runs (not those of calls it makes). */
  onProgress?: (update: ProgressUpdate) => void
  /** What to do about approval; `{ mode: 'ask' }` when absent. */
  approval?: ApprovalMode
  /**
   * The person who had an agent make this call (an agent run): their role and policies apply too,
   * and they may not approve it.
   */
  onBehalfOf?: Caller | null
  /**
   * The call on another skillplane that made this one (its MCP request said so): audited as the
   * call's origin so call trees join across skillplanes. A claim, shown and never trusted.
   */
  origin?: { callId: string } | null
  /**
   * How to reach the caller while the call runs (an MCP session, an agent run): the executor's
   * `ctx.client`, passed on to nested calls. None (a plain HTTP call): questions are refused.
   */
  client?: CallerClient | null
}

/** The mode for a surface's `approvalId` and `wait` parameters: run with that request, else ask. */
export function approvalFor(approvalId: string | undefined, wait: ApprovalWait | undefined): ApprovalMode {
  return approvalId ? { mode: 'use', approvalId, wait } : { mode: 'ask', wait }
}
