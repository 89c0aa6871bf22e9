import { trace } from '@opentelemetry/api'
import type { EdgeInfo, SkillContext, Skill } from '../../skill/index.js'
import { DeadlineExceeded } from '../abort-reasons.js'
import type { CallCancel } from '../call-cancel.js'
import { EdgeDeadlineExceeded, EdgeUnavailable, type EdgeRouter } from '../edge-router.js'
import { isSkillError } from '../skill-error.js'
import { errorMessage } from './error-message.js'
import { interrupted } from './interrupted.js'
import { refusal, type Refusal } from './refusal.js'

/** What the executor returned, not yet checked. */
export interface Dispatched {
  data: unknown
}

/**
 * Stage 6: run the skill's executor with its deadline, in the call's span; a throw, the deadline
 * or an abort becomes a refusal. Executor kinds are told apart here and nowhere else.
 */
export async function dispatchCall(
  skill: Skill,
  input: unknown,
  ctx: SkillContext,
  cancel: CallCancel,
  edge?: { router: EdgeRouter; target: EdgeInfo; secrets: ReadonlyMap<string, string> },
): Promise<Dispatched | Refusal> {
  trace.getActiveSpan()?.setAttribute('skillplane.class', skill.class)
  const timer = setTimeout(() => cancel.abort(new DeadlineExceeded(skill.timeoutMs)), skill.timeoutMs)
  try {
    const run = () => {
      // A call cancelled before its turn never starts its executor.
      if (cancel.aborted) throw cancel.reason
      if (edge) {
        const call = { callId: ctx.callId, timeoutMs: skill.timeoutMs, signal: cancel.signal, progress: ctx.progress, secrets: edge.secrets }
        return edge.router.dispatch(edge.target, skill, input, call)
      }
      return skill.run(input, ctx)
    }
    return { data: await cancel.race(Promise.resolve().then(run)) }
  } catch (error) {
    const reasonForAbort = cancel.aborted ? cancel.reason : undefined
    if (reasonForAbort instanceof DeadlineExceeded) return refusal('timeout', `skill "${skill.key}": ${reasonForAbort.message}`, 'timeout')
    if (cancel.aborted) return interrupted(cancel)
    if (error instanceof EdgeDeadlineExceeded) return refusal('timeout', `skill "${skill.key}": ${error.message}`, 'timeout')
    if (error instanceof EdgeUnavailable) return refusal('edge_unavailable', error.message, 'error')
    if (isSkillError(error)) return refusal(error.code, error.message, error.code === 'denied' ? 'denied' : 'error')
    return refusal('executor_error', `skill "${skill.key}" failed: ${errorMessage(error)}`, 'error')
  } finally {
    clearTimeout(timer)
  }
}
