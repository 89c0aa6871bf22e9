import type { Call } from '../call.js'
import { errorMessage } from '../error-message.js'
import { refusal, type Refusal } from '../refusal.js'

/** The skill's own gate (`needsApproval`) for a call the policy lets run: why to ask, or null to run. */
export async function skillNeedsApproval(call: Call): Promise<string | null | Refusal> {
  const { skill } = call
  let verdict: boolean | string
  try {
    verdict = await skill.needsApproval!(call.value, call.ctx)
  } catch (error) {
    return refusal('executor_error', `needsApproval of skill "${skill.key}" failed: ${errorMessage(error)}`, 'error')
  }
  if (!verdict) return null
  return typeof verdict === 'string' ? verdict : `skill "${skill.key}" asks for approval of this input`
}
