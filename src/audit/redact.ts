import type { JsonSchema } from '../skill/skill-types.js'

export const REDACTED = '[REDACTED]'

// Key names that carry credentials whatever the schema says.
const SECRET_NAME = /pass(word|phrase)?$|^pwd$|token|secret|api[-_]?key|authorization|credential|private[-_]?key|cookie/i

/**
 * A copy of `value` with secrets replaced: properties the schema marks `writeOnly: true`,
 * `x-secret: true` or `format: password`, and any property whose name looks like a credential.
 */
export function redact(value: unknown, schema?: JsonSchema | null): unknown {
  return walk(value, schema ?? undefined, 0)
}

function walk(value: unknown, schema: JsonSchema | undefined, depth: number): unknown {
  if (schema && isSecretSchema(schema)) return REDACTED
  if (value === null || typeof value !== 'object' || depth > 64) return value
  if (Array.isArray(value)) {
    const items = schema && isObject(schema.items) ? (schema.items as JsonSchema) : undefined
    return value.map((item) => walk(item, items, depth + 1))
  }
  const properties = schema && isObject(schema.properties) ? (schema.properties as Record<string, JsonSchema>) : undefined
  const additional = schema && isObject(schema.additionalProperties) ? (schema.additionalProperties as JsonSchema) : undefined
  const out: Record<string, unknown> = {}
  for (const [name, child] of Object.entries(value)) {
    out[name] = SECRET_NAME.test(name) ? REDACTED : walk(child, properties?.[name] ?? additional, depth + 1)
  }
  return out
}

function isSecretSchema(schema: JsonSchema): boolean {
  return schema.writeOnly === true || schema['x-secret'] === true || schema.format === 'password'
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
