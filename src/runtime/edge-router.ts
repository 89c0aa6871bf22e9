import type { EdgeInfo, ProgressUpdate, Skill } from '../skill/index.js'
import { SkillplaneError } from '../errors/index.js'
import type { SubSpan } from '../audit/index.js'

/** The edge a host-scope call names, or why it can't run there. */
export type EdgeResolution = { edge: EdgeInfo } | { code: 'invalid_input' | 'not_found' | 'edge_unavailable' | 'denied'; message: string }

export interface EdgeCall {
  callId: string
  /** The call's deadline, which the edge enforces too. */
  timeoutMs: number
  /** Aborted when the call is cancelled or times out: the edge is told to stop the work. */
  signal: AbortSignal
  progress(update: ProgressUpdate): void
  /** The secrets the skill declares, opened for this call: sent with it and never otherwise. */
  secrets: ReadonlyMap<string, string>
  /** Keep what happened on the way that is no audit row of its own (a relay through another manager), for the call's tree. */
  note(span: SubSpan): void
}

/**
 * How the pipeline reaches edges (the edge source implements it): which edge a call names, and
 * the call's dispatch over its tunnel. `dispatch` resolves with the edge's result or throws: an
 * `EdgeUnavailable`, a `SkillError` for what the edge refused, or an Error for what failed there.
 */
export interface EdgeRouter {
  resolve(ref: string | null, skill: Skill): EdgeResolution
  dispatch(edge: EdgeInfo, skill: Skill, input: unknown, call: EdgeCall): Promise<unknown>
}

/** The edge went away or can't be reached: the call's outcome there is unknown or it never started. */
export class EdgeUnavailable extends SkillplaneError {
  override readonly code = 'edge_unavailable'
  override readonly name = 'EdgeUnavailable'
}

/** The edge stopped the call at its deadline (the call's own) before this manager's timer fired: a timeout all the same. */
export class EdgeDeadlineExceeded extends SkillplaneError {
  override readonly code = 'timeout'
  override readonly name = 'EdgeDeadlineExceeded'
}
