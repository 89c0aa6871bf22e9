import { describeIssues, checkJsonShape } from '../../skill/index.js'
import type { Call } from '../call.js'
import { errorMessage } from '../error-message.js'
import { refusal, type Refusal } from '../refusal.js'

/** The input as the skill's schema parses it (defaults filled in), or why not. */
export function validateInput(call: Call): Refusal | undefined {
  const { skill, input } = call
  if (call.inputJson === undefined) return refusal('invalid_input', 'input must be a JSON value', 'error')
  const shape = checkJsonShape(input, { forbidProtoKey: true })
  if (shape) return refusal('invalid_input', `invalid input: the input ${shape}`, 'error')
  let checked: ReturnType<typeof skill.input.validate>
  try {
    checked = skill.input.validate(input)
  } catch (error) {
    // A refine or transform in the skill's own schema threw: the input is what it choked on.
    return refusal('invalid_input', `input validation of skill "${skill.key}" failed: ${errorMessage(error)}`, 'error')
  }
  if (!checked.ok) return refusal('invalid_input', describeIssues('invalid input', checked.issues), 'error', { issues: checked.issues })
  call.value = checked.value
  return undefined
}
