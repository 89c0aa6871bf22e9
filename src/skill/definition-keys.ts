import { unknownField } from '../text/index.js'
import type { SkillDefinition } from './skill-types.js'
import { DefinitionError } from './definition-error.js'

// Every field a definition may have, as a record so that a field added to SkillDefinition must be listed.
const FIELDS: Record<keyof SkillDefinition, true> = {
  key: true,
  title: true,
  description: true,
  class: true,
  scope: true,
  category: true,
  tags: true,
  agents: true,
  examples: true,
  related: true,
  input: true,
  inputSchema: true,
  output: true,
  outputSchema: true,
  inputSchemaFor: true,
  unavailable: true,
  secrets: true,
  settings: true,
  oauth: true,
  awaiting: true,
  timeoutMs: true,
  needsApproval: true,
  run: true,
  execute: true,
}
const DEFINITION_KEYS = Object.keys(FIELDS)

/** What a class means, for the error that asks for one. */
export const CLASS_CHOICES = `"safe" (reads only), "mutating" (changes state) or "dangerous" (destructive)`

/**
 * Refuse fields a definition may not have, and a missing class: a typo in `class` must not make
 * a dangerous skill run as safe, so no class is ever assumed.
 */
export function checkDefinitionKeys(definition: object, where: string): void {
  const unknown = Object.keys(definition).filter((key) => !Object.hasOwn(FIELDS, key))
  if (unknown.length) throw new DefinitionError(`${where}: ${unknown.map((key) => unknownField(key, DEFINITION_KEYS)).join('; ')}`)
  if ((definition as SkillDefinition).class === undefined) {
    throw new DefinitionError(`${where}: class is required: declare ${CLASS_CHOICES}`)
  }
}
