import { trace } from '@opentelemetry/api'
import type { SubSpan } from '../../audit/index.js'
import { DeadlineExceeded } from '../abort-reasons.js'
import type { Call } from '../call.js'
import { EdgeDeadlineExceeded, EdgeUnavailable } from '../edge-router.js'
import { errorMessage } from '../error-message.js'
import { interrupted } from '../interrupted.js'
import { refusal, type Refusal } from '../refusal.js'
import { isSkillError } from '../skill-error.js'
import type { StageDeps } from '../stage.js'
import { tellCaller } from '../tell-caller.js'

/**
 * Run the skill's executor with its deadline, in the call's span; a throw, the deadline
 * or an abort becomes a refusal. Executor kinds are told apart here and nowhere else.
 */
export async function dispatchCall(call: Call, deps: StageDeps): Promise<Refusal | undefined> {
  const { skill, ctx, value: input } = call
  const cancel = call.cancel!
  const router = call.edge && deps.edges
  trace.getActiveSpan()?.setAttribute('skillplane.class', skill.class)
  tellCaller(call, deps)
  const deadline = deps.deadlines.start(cancel, skill.timeoutMs)
  call.deadlineAt = Date.now() + skill.timeoutMs
  try {
    const run = () => {
      // A call cancelled before its turn never starts its executor.
      if (cancel.aborted) throw cancel.reason
      if (router) {
        const remote = {
          callId: call.id,
          timeoutMs: skill.timeoutMs,
          signal: cancel.signal,
          progress: ctx.progress,
          secrets: call.opened!.secrets,
          note: (span: SubSpan) => call.spans.push(span),
        }
        return router.dispatch(call.edge!, skill, input, remote)
      }
      return skill.run(input, ctx)
    }
    call.output = await cancel.race(Promise.resolve().then(run))
    return undefined
  } catch (error) {
    const reasonForAbort = cancel.aborted ? cancel.reason : undefined
    if (reasonForAbort instanceof DeadlineExceeded) return refusal('timeout', `skill "${skill.key}": ${reasonForAbort.message}`, 'timeout')
    if (cancel.aborted) return interrupted(cancel)
    if (error instanceof EdgeDeadlineExceeded) return refusal('timeout', `skill "${skill.key}": ${error.message}`, 'timeout')
    if (error instanceof EdgeUnavailable) return refusal('edge_unavailable', error.message, 'error')
    if (isSkillError(error)) return refusal(error.code, error.message, error.code === 'denied' ? 'denied' : 'error')
    return refusal('executor_error', `skill "${skill.key}" failed: ${errorMessage(error)}`, 'error')
  } finally {
    deps.deadlines.end(deadline)
  }
}
