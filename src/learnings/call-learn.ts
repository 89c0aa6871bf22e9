import { scrubValue } from '../audit/index.js'
import type { LearningInput } from '../skill/index.js'
import type { Learnings, LearningOrigin } from './learnings.js'

/**
 * A call's `ctx.learn`, recorded with the call as its origin. Learnings outlive the call and reach
 * other callers and prompts: the secrets injected into the call are scrubbed first.
 */
export function callLearn(learnings: Learnings, origin: LearningOrigin, scrub: ReadonlySet<string>): (learning: LearningInput) => Promise<{ id: string }> {
  return (learning) => learnings.record(scrub.size > 0 ? scrubValue(learning, scrub) : learning, origin)
}
