import type { SchemaLike, SkillDefinition } from './skill-types.js'
import { assertValidKey } from './skill-key.js'
import { DefinitionError } from './definition-error.js'
import { definitionFields } from './definition-fields.js'
import { checkDefinitionKeys } from './definition-keys.js'

// A registry-wide brand: Symbol.for survives two copies of the package (src and dist) in one process.
const SKILL = Symbol.for('skillplane.skill')
const ORIGIN = Symbol.for('skillplane.origin')

export type DefinedSkill<I extends SchemaLike = SchemaLike, O extends SchemaLike = SchemaLike> = Readonly<SkillDefinition<I, O>> & { readonly [SKILL]: true }

export function defineSkill<I extends SchemaLike = SchemaLike, O extends SchemaLike = SchemaLike>(definition: SkillDefinition<I, O>): DefinedSkill<I, O> {
  const origin = callerLocation()
  if (definition === null || typeof definition !== 'object') {
    throw new DefinitionError(`defineSkill needs an object (${origin})`)
  }
  assertValidKey(definition.key, origin)
  const where = `defineSkill "${definition.key}" (${origin})`
  checkDefinitionKeys(definition, where)
  definitionFields(definition as SkillDefinition, where)
  return Object.freeze({ ...definition, [SKILL]: true as const, [ORIGIN]: origin })
}

export function isDefinedSkill(value: unknown): value is DefinedSkill {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[SKILL] === true
}

/** Where a skill was defined (file:line), for clash errors that name both definitions. */
export function definitionOrigin(skill: DefinedSkill): string {
  return ((skill as unknown as Record<symbol, unknown>)[ORIGIN] as string | undefined) ?? 'unknown location'
}

function callerLocation(): string {
  const stack = new Error().stack?.split('\n') ?? []
  // [0] "Error", [1] callerLocation, [2] defineSkill, [3] the definition site.
  const frame = stack[3]?.trim() ?? ''
  const match = /\(?((?:file:\/\/)?[^()\s]+:\d+):\d+\)?$/.exec(frame)
  if (!match?.[1]) return 'unknown location'
  const location = match[1].replace(/^file:\/\//, '')
  const cwd = process.cwd() + '/'
  return location.startsWith(cwd) ? location.slice(cwd.length) : location
}
