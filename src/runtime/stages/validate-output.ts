import { describeIssues, checkJsonShape } from '../../skill/index.js'
import type { Call } from '../call.js'
import { errorMessage } from '../error-message.js'
import { refusal, type Refusal } from '../refusal.js'
import { isSkillError } from '../skill-error.js'

/** The result as the skill's output schema parses it, or why it is not one. */
export function validateOutput(call: Call): Refusal | undefined {
  const { skill, output: data } = call
  try {
    const shape = checkJsonShape(data)
    if (shape) return refusal('invalid_output', `skill "${skill.key}" returned invalid output: the result ${shape}`, 'error')
    if (!skill.output) return undefined
    const out = skill.output.validate(data)
    if (!out.ok) return refusal('invalid_output', describeIssues(`skill "${skill.key}" returned invalid output`, out.issues), 'error', { issues: out.issues })
    call.output = out.value
    return undefined
  } catch (error) {
    // A getter in the result or a refine in the output schema threw: the skill failed, as if it had thrown.
    if (isSkillError(error)) return refusal(error.code, error.message, error.code === 'denied' ? 'denied' : 'error')
    return refusal('executor_error', `skill "${skill.key}" failed: ${errorMessage(error)}`, 'error')
  }
}
