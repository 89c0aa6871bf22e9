import {
  RELATION_KINDS,
  type Caller,
  type JsonSchema,
  type SkillClass,
  type SkillContext,
  type SkillDefinition,
  type SkillExample,
  type SkillOAuth,
  type SkillRelations,
  type SkillScope,
  type SkillSourceKind,
} from './skill-types.js'
import { compileSchema, type CompiledSchema } from './compile-schema.js'
import { assertValidKey, skillSlug, toolName } from './skill-key.js'
import { DefinitionError } from './definition-error.js'
import { definitionFields } from './definition-fields.js'
import { checkDefinitionKeys } from './definition-keys.js'
import { VALUE_NAME, VALUE_NAME_RULE } from './value-name.js'

/** In order of strictness. */
export const CLASSES: readonly SkillClass[] = ['safe', 'mutating', 'dangerous']
const SCOPES: readonly SkillScope[] = ['manager', 'host']
const EMPTY_OBJECT: JsonSchema = { type: 'object', properties: {} }
// Node fires longer timers at once: this is the largest deadline setTimeout honours.
export const MAX_TIMEOUT_MS = 2_147_483_647

/** A registered skill: normalised metadata, compiled schemas and its executor. */
export interface Skill {
  key: string
  slug: string
  toolName: string
  title: string
  description: string
  /** The class in effect: the declared one, or an admin's raise of it through the catalog. */
  class: SkillClass
  /** The class the definition declares. */
  declaredClass: SkillClass
  scope: SkillScope
  category: string
  tags: string[]
  agents: string[]
  examples: SkillExample[]
  /** Declared relations (keys), each list deduplicated. */
  related: Required<SkillRelations>
  source: SkillSourceKind
  /** Where it came from: file:line for code, a manifest path for data sources. */
  origin: string
  timeoutMs: number
  input: CompiledSchema
  output: CompiledSchema | null
  needsApproval: ((input: unknown, ctx: SkillContext) => boolean | string | Promise<boolean | string>) | null
  /** Why the executor can't run now, or null when it can. */
  unavailable: () => string | null
  /** Secret names it needs, resolved per caller before each call. */
  secrets: string[]
  /** Setting names it needs, resolved the same way. */
  settings: string[]
  /** The OAuth connection it runs with, scopes and account filled in (scopes empty: the provider's defaults), or null. */
  oauth: Required<SkillOAuth> | null
  /** Global values its source still waits for (an MCP server's), or null. */
  awaiting: () => { secrets?: string[]; settings?: string[] } | null
  /** The input schema as one caller should see it (defaults to input.jsonSchema). */
  inputSchemaFor: (view: { caller: Caller; agent: string | null }) => JsonSchema
  run: (input: unknown, ctx: SkillContext) => unknown
}

export interface CreateSkillOptions {
  source: SkillSourceKind
  origin: string
  defaultTimeoutMs: number
}

export function createSkill(definition: SkillDefinition, options: CreateSkillOptions): Skill {
  const where = `skill "${definition.key}" (${options.origin})`
  assertValidKey(definition.key, options.origin)
  checkDefinitionKeys(definition, where)
  if (typeof definition.description !== 'string' || definition.description.trim() === '') {
    throw new DefinitionError(`${where}: description is required`)
  }
  if (!CLASSES.includes(definition.class)) {
    throw new DefinitionError(`${where}: class must be one of ${CLASSES.join(', ')}, got ${JSON.stringify(definition.class)}`)
  }
  const scope = definition.scope ?? 'manager'
  if (!SCOPES.includes(scope)) {
    throw new DefinitionError(`${where}: scope must be manager or host, got ${JSON.stringify(scope)}`)
  }
  const timeoutMs = definition.timeoutMs ?? options.defaultTimeoutMs
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0 || timeoutMs > MAX_TIMEOUT_MS) {
    throw new DefinitionError(`${where}: timeoutMs must be a positive number of milliseconds up to ${MAX_TIMEOUT_MS} (about 24.8 days)`)
  }
  if (definition.unavailable !== undefined && typeof definition.unavailable !== 'function') {
    throw new DefinitionError(`${where}: unavailable must be a function returning a reason or null`)
  }
  if (definition.awaiting !== undefined && typeof definition.awaiting !== 'function') {
    throw new DefinitionError(`${where}: awaiting must be a function returning the missing secrets and settings, or null`)
  }
  const secrets = namesOf(definition.secrets, 'secrets', where)
  const settings = namesOf(definition.settings, 'settings', where)
  const oauth = oauthOf(definition.oauth, where)
  // The token is handed over as the secret named after the provider: a declared secret of that name would be shadowed.
  if (oauth && secrets.includes(oauth.provider))
    throw new DefinitionError(
      `${where}: oauth.provider ${oauth.provider} is also a declared secret; the access token is read as ctx.secrets.get("${oauth.provider}")`,
    )
  const related = relationsOf(definition.related, where)
  const fields = definitionFields(definition, where)
  const input = fields.input ? compileSchema(fields.input, 'input', `${where} input`) : compileSchema(EMPTY_OBJECT, 'input', where)
  const output = fields.output ? compileSchema(fields.output, 'output', `${where} output`) : null
  return {
    key: definition.key,
    slug: skillSlug(definition.key),
    toolName: toolName(definition.key),
    title: definition.title ?? titleFromKey(definition.key),
    description: definition.description.trim(),
    class: definition.class,
    declaredClass: definition.class,
    scope,
    category: definition.category ?? 'general',
    tags: [...new Set(definition.tags ?? [])],
    agents: [...new Set(definition.agents ?? [])],
    examples: definition.examples ?? [],
    related,
    source: options.source,
    origin: options.origin,
    timeoutMs,
    input,
    output,
    needsApproval: (definition.needsApproval as Skill['needsApproval']) ?? null,
    unavailable: definition.unavailable ?? (() => null),
    secrets,
    settings,
    oauth,
    awaiting: definition.awaiting ?? (() => null),
    inputSchemaFor: definition.inputSchemaFor ?? (() => input.jsonSchema),
    run: fields.run as Skill['run'],
  }
}

// Provider names: the config's lower_snake names, or mcp:<server> for an imported server's authorization server.
const PROVIDER_NAME = /^(?:mcp:)?[a-z][a-z0-9_]{0,63}$/
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/

function oauthOf(oauth: unknown, where: string): Required<SkillOAuth> | null {
  if (oauth === undefined) return null
  if (typeof oauth !== 'object' || oauth === null || Array.isArray(oauth)) throw new DefinitionError(`${where}: oauth must be { provider, scopes?, account? }`)
  const { provider, scopes = [], account = 'person', ...rest } = oauth as Record<string, unknown>
  const extra = Object.keys(rest)
  if (extra.length > 0) throw new DefinitionError(`${where}: oauth has unknown field ${JSON.stringify(extra[0])} (it takes provider, scopes, account)`)
  if (typeof provider !== 'string' || !PROVIDER_NAME.test(provider)) {
    throw new DefinitionError(`${where}: oauth.provider must name a provider of the config's oauth.providers (lower_snake), got ${JSON.stringify(provider)}`)
  }
  if (!Array.isArray(scopes) || scopes.some((s) => typeof s !== 'string' || !SCOPE_TOKEN.test(s))) {
    throw new DefinitionError(`${where}: oauth.scopes must be a list of scope tokens (no spaces or quotes)`)
  }
  if (account !== 'person' && account !== 'service')
    throw new DefinitionError(`${where}: oauth.account must be "person" or "service", got ${JSON.stringify(account)}`)
  return { provider, scopes: [...new Set(scopes as string[])], account }
}

function namesOf(names: unknown, field: string, where: string): string[] {
  if (names === undefined) return []
  if (!Array.isArray(names)) throw new DefinitionError(`${where}: ${field} must be a list of names`)
  for (const name of names) {
    if (typeof name !== 'string' || !VALUE_NAME.test(name)) {
      throw new DefinitionError(`${where}: ${field} entry ${JSON.stringify(name)} is not a valid name (${VALUE_NAME_RULE})`)
    }
  }
  return [...new Set(names as string[])]
}

function relationsOf(related: SkillRelations | undefined, where: string): Required<SkillRelations> {
  if (related !== undefined && (typeof related !== 'object' || related === null || Array.isArray(related))) {
    throw new DefinitionError(`${where}: related must be an object of ${RELATION_KINDS.join(', ')}, each a list of skill keys`)
  }
  const out = { requires: [], enhances: [], composes: [], succeeds: [] } as Required<SkillRelations>
  for (const [kind, keys] of Object.entries(related ?? {})) {
    if (!(RELATION_KINDS as readonly string[]).includes(kind)) {
      throw new DefinitionError(`${where}: related.${kind} is not a relation: use ${RELATION_KINDS.join(', ')}`)
    }
    if (!Array.isArray(keys) || keys.some((k) => typeof k !== 'string' || k === '')) {
      throw new DefinitionError(`${where}: related.${kind} must be a list of skill keys`)
    }
    out[kind as keyof SkillRelations] = [...new Set(keys as string[])]
  }
  return out
}

function titleFromKey(key: string): string {
  const words = key.split('_')
  return [words[0]!.charAt(0).toUpperCase() + words[0]!.slice(1), ...words.slice(1)].join(' ')
}
