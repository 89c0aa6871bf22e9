import { type Skill, describeIssues, checkJsonShape } from '../../skill/index.js'
import { isSkillError } from '../skill-error.js'
import { errorMessage } from './error-message.js'
import { refusal, type Refusal } from './refusal.js'

/** Stage 7: the result as the skill's output schema parses it, or why it is not one. */
export function validateOutput(skill: Skill, data: unknown): { value: unknown } | Refusal {
  try {
    const shape = checkJsonShape(data)
    if (shape) return refusal('invalid_output', `skill "${skill.key}" returned invalid output: the result ${shape}`, 'error')
    if (!skill.output) return { value: data }
    const out = skill.output.validate(data)
    if (!out.ok) return refusal('invalid_output', describeIssues(`skill "${skill.key}" returned invalid output`, out.issues), 'error', { issues: out.issues })
    return { value: out.value }
  } catch (error) {
    // A getter in the result or a refine in the output schema threw: the skill failed, as if it had thrown.
    if (isSkillError(error)) return refusal(error.code, error.message, error.code === 'denied' ? 'denied' : 'error')
    return refusal('executor_error', `skill "${skill.key}" failed: ${errorMessage(error)}`, 'error')
  }
}
