import type { SchemaLike, SkillDefinition, SkillRun } from './skill-types.js'
import { DefinitionError } from './definition-error.js'

/** The input, output and executor of a definition, under either name (ours or the AI SDK's). */
export function definitionFields(
  definition: SkillDefinition,
  where: string,
): { input?: SchemaLike; output?: SchemaLike; run: SkillRun<SchemaLike, SchemaLike> } {
  const input = one(definition, 'input', 'inputSchema', where)
  const output = one(definition, 'output', 'outputSchema', where)
  const run = one(definition, 'run', 'execute', where)
  if (typeof run !== 'function') throw new DefinitionError(`${where} has no run (or execute) function`)
  return { input, output, run }
}

// Both names at once would leave the reader guessing which one counts.
function one<K extends keyof SkillDefinition>(definition: SkillDefinition, ours: K, theirs: K, where: string): SkillDefinition[K] {
  if (definition[ours] !== undefined && definition[theirs] !== undefined) {
    throw new DefinitionError(`${where} has both ${ours} and ${theirs}: they are one field under two names, give one`)
  }
  return definition[ours] ?? definition[theirs]
}
