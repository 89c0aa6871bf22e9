import type { JsonSchema } from '../skill/skill-types.js'

export const REDACTED = '[REDACTED]'

// Words of a property name that mark a credential whatever the schema says ("accessToken", "api_key"),
// matched as whole words so that e.g. "tokens_used" stays visible.
const SECRET_WORDS = new Set(['password', 'passwd', 'passphrase', 'pwd', 'secret', 'token', 'apikey', 'authorization', 'credential', 'credentials', 'cookie'])
const SECRET_PAIRS = new Set(['api key', 'private key', 'access key', 'secret key', 'session id'])

function isSecretName(name: string): boolean {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().split(/[^a-z0-9]+/)
  return words.some((w, i) => SECRET_WORDS.has(w) || (i > 0 && SECRET_PAIRS.has(`${words[i - 1]} ${w}`)))
}

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
    out[name] = isSecretName(name) ? REDACTED : walk(child, properties?.[name] ?? additional, depth + 1)
  }
  return out
}

function isSecretSchema(schema: JsonSchema): boolean {
  return schema.writeOnly === true || schema['x-secret'] === true || schema.format === 'password'
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
