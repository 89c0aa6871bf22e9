import type { JsonSchema } from '../skill/index.js'
import { secretForms } from './secret-forms.js'

export const REDACTED = '[REDACTED]'

// Words of a property name that mark a credential whatever the schema says ("accessToken", "api_key"),
// matched as whole words so that e.g. "tokens_used" stays visible.
const SECRET_WORDS = new Set(['password', 'passwd', 'passphrase', 'pwd', 'secret', 'token', 'apikey', 'authorization', 'credential', 'credentials', 'cookie'])
const SECRET_PAIRS = new Set(['api key', 'private key', 'access key', 'secret key', 'session id'])

export interface RedactOptions {
  /** Receives each secret value removed, so the same values can be scrubbed from results and errors. */
  collect?: Set<string>
  /** Secret values to blank out wherever they appear in strings. */
  scrub?: ReadonlySet<string>
}

/**
 * A copy of `value` with secrets replaced: properties the schema marks `writeOnly: true`,
 * `x-secret: true` or `format: password`, any property whose name looks like a credential,
 * and any known secret value appearing inside a string.
 */
export function redact(value: unknown, schema?: JsonSchema | null, options: RedactOptions = {}): unknown {
  // Most inputs hold nothing to hide: then the value itself is the copy (JSON of it is the same).
  if (!options.scrub?.size && clean(value, schema ?? undefined, 0)) return value
  return walk(value, schema ?? undefined, 0, options)
}

/** Whether walk() would return an equal value: no secret names or schemas, nothing to convert, not too deep. */
function clean(value: unknown, schema: JsonSchema | undefined, depth: number): boolean {
  if (value === null || typeof value !== 'object') return !(schema && isSecretSchema(schema))
  if (depth > MAX_DEPTH || (schema && isSecretSchema(schema)) || typeof (value as { toJSON?: unknown }).toJSON === 'function') return false
  if (Array.isArray(value)) {
    const items = schema && isObject(schema.items) ? (schema.items as JsonSchema) : undefined
    return value.every((item) => clean(item, items, depth + 1))
  }
  const properties = schema && isObject(schema.properties) ? (schema.properties as Record<string, JsonSchema>) : undefined
  const additional = schema && isObject(schema.additionalProperties) ? (schema.additionalProperties as JsonSchema) : undefined
  for (const name in value) {
    if (!Object.hasOwn(value, name)) continue
    if (isSecretName(name)) return false
    const child = (value as Record<string, unknown>)[name]
    if (!clean(child, properties && Object.hasOwn(properties, name) ? properties[name] : additional, depth + 1)) return false
  }
  return true
}

/**
 * A flat object schema (an elicitation form's) with `writeOnly: true` on each property redaction
 * takes for a secret, by its name or its schema: the one rule, which a form follows to type it unseen.
 */
export function markSecretFields<T>(schema: T): T {
  // A plain-JS skill's form may come without a schema, or with one that isn't an object's: nothing to mark.
  if (!isObject(schema) || !isObject(schema.properties)) return schema
  const properties = Object.fromEntries(
    Object.entries(schema.properties).map(([name, field]) =>
      isObject(field) && field.writeOnly !== true && (isSecretName(name) || isSecretSchema(field)) ? [name, { ...field, writeOnly: true }] : [name, field],
    ),
  )
  return { ...schema, properties } as T
}

/** A string with every known secret value blanked out. */
export function scrubText(text: string, secrets: ReadonlySet<string>): string {
  let out = text
  // Longest first: a secret that contains another must not be cut in two, leaving its rest.
  for (const secret of longestFirst(secrets)) if (out.includes(secret)) out = out.replaceAll(secret, REDACTED)
  return out
}

function longestFirst(secrets: ReadonlySet<string>): Iterable<string> {
  return secrets.size < 2 ? secrets : [...secrets].sort((a, b) => b.length - a.length)
}

/**
 * A copy of `value` with every known secret value blanked out of its strings (keys included),
 * nothing else changed: what a caller gets back from a skill that was given secrets.
 */
export function scrubValue(value: unknown, secrets: ReadonlySet<string>, depth = 0): unknown {
  if (secrets.size === 0) return value
  if (typeof value === 'string') return scrubText(value, secrets)
  if (value === null || typeof value !== 'object') return value
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return scrubValue((value as { toJSON(): unknown }).toJSON(), secrets, depth)
  if (depth > MAX_DEPTH) return '[TOO DEEP]'
  if (Array.isArray(value)) return value.map((item) => scrubValue(item, secrets, depth + 1))
  const out: Record<string, unknown> = {}
  for (const [name, child] of Object.entries(value)) {
    Object.defineProperty(out, scrubText(name, secrets), { value: scrubValue(child, secrets, depth + 1), enumerable: true, writable: true, configurable: true })
  }
  return out
}

const MAX_DEPTH = 64

function walk(value: unknown, schema: JsonSchema | undefined, depth: number, options: RedactOptions): unknown {
  if (schema && isSecretSchema(schema)) return hide(value, options)
  // Dates and the like are audited as JSON would write them.
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    value = (value as { toJSON(): unknown }).toJSON()
  }
  if (typeof value === 'string') return options.scrub?.size ? scrubText(value, options.scrub) : value
  if (value === null || typeof value !== 'object') return value
  // Deeper than this is not inspected, so it is not stored either: it could hide a secret.
  if (depth > MAX_DEPTH) return '[TOO DEEP]'
  if (Array.isArray(value)) {
    const items = schema && isObject(schema.items) ? (schema.items as JsonSchema) : undefined
    return value.map((item) => walk(item, items, depth + 1, options))
  }
  const properties = schema && isObject(schema.properties) ? (schema.properties as Record<string, JsonSchema>) : undefined
  const additional = schema && isObject(schema.additionalProperties) ? (schema.additionalProperties as JsonSchema) : undefined
  const out: Record<string, unknown> = {}
  for (const [name, child] of Object.entries(value)) {
    const copy = isSecretName(name)
      ? hide(child, options)
      : walk(child, Object.hasOwn(properties ?? {}, name) ? properties![name] : additional, depth + 1, options)
    // Not `out[name] = …`: for a "__proto__" key that sets the prototype, hiding the value from the copy.
    Object.defineProperty(out, name, { value: copy, enumerable: true, writable: true, configurable: true })
  }
  return out
}

function hide(value: unknown, options: RedactOptions, depth = 0): string {
  if (!options.collect || depth > MAX_DEPTH) return REDACTED
  if (typeof value === 'string' || typeof value === 'number') {
    for (const form of secretForms(String(value))) options.collect.add(form)
  } else if (value !== null && typeof value === 'object') {
    // A secret object (credentials: { user, key }): each of its values is secret too.
    for (const child of Object.values(value)) hide(child, options, depth + 1)
  }
  return REDACTED
}

// Property names repeat from call to call: each is judged once (bounded in count and length, since callers choose them).
const judged = new Map<string, boolean>()
const JUDGED_MAX = 10_000
const JUDGED_MAX_LENGTH = 128

function isSecretName(name: string): boolean {
  let secret = judged.get(name)
  if (secret === undefined) {
    secret = judgeName(name)
    if (name.length > JUDGED_MAX_LENGTH) return secret
    if (judged.size >= JUDGED_MAX) judged.clear()
    judged.set(name, secret)
  }
  return secret
}

function judgeName(name: string): boolean {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
  return words.some((w, i) => SECRET_WORDS.has(w) || (i > 0 && SECRET_PAIRS.has(`${words[i - 1]} ${w}`)))
}

function isSecretSchema(schema: JsonSchema): boolean {
  return schema.writeOnly === true || schema['x-secret'] === true || schema.format === 'password'
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
