import type { ResolvedOpenApiSource } from '../../config/index.js'
import type { JsonSchema, SkillOAuth } from '../../skill/index.js'
import { hostAllowed, hostOf } from './allow-hosts.js'
import { classOfMethod, type HttpAuth, type HttpOperation, type InputParameter } from './http-operation.js'
import type { OpenApiDocument } from './load-openapi.js'
import { operationKey } from './operation-key.js'
import { didYouMean } from '../../text/index.js'

const METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete'] as const
// Headers the request itself sets; OpenAPI says parameters with these names are ignored.
const RESERVED_HEADERS = new Set(['accept', 'content-type', 'authorization'])

interface Parameter {
  name: string
  in: string
  required?: boolean
  description?: string
  schema?: JsonSchema
  content?: Record<string, { schema?: JsonSchema }>
}

interface Operation {
  operationId?: string
  summary?: string
  description?: string
  tags?: string[]
  parameters?: Parameter[]
  requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> }
  security?: unknown[]
  servers?: OpenApiDocument['servers']
}

/**
 * One operation per skill: its input an object of the path, query and header parameters (by
 * their names) and, when it takes a JSON body, a `body` property holding it. What can't become a
 * skill is a problem, never a failure of the others.
 */
export function openApiOperations(
  source: ResolvedOpenApiSource,
  document: OpenApiDocument,
  specUrl: URL | null,
): { operations: HttpOperation[]; baseUrl: string | null; problems: string[] } {
  const problems: string[] = []
  const v30 = document.openapi.startsWith('3.0')
  const base = source.baseUrl ?? serverUrl(document.servers, specUrl)
  if (!base) return { operations: [], baseUrl: null, problems: ['no base URL: the document names no absolute server URL; set baseUrl'] }
  // A document fetched from a URL doesn't pick where credentials go: by default its servers must be on its own host.
  const allowHosts = source.allowHosts ?? [source.baseUrl || !specUrl || specUrl.protocol === 'file:' ? hostOf(base) : specUrl.host]
  if (!hostAllowed(new URL(base), allowHosts)) {
    const why = source.allowHosts ? `allowHosts (${allowHosts.join(', ')})` : `the host the document came from (${allowHosts[0]}); set baseUrl or allowHosts`
    return { operations: [], baseUrl: base, problems: [`the document's server ${new URL(base).host} is not in ${why}`] }
  }
  const prefix = source.prefix ?? source.name
  const operations: HttpOperation[] = []
  const seen = new Map<string, string>()
  const mentioned = new Set<string>()
  // Every operationId and tag, to suggest the one meant by an entry that names none.
  const names = new Set<string>()
  const matches = (list: readonly string[], op: Operation) => {
    const hits = list.filter((entry) => entry === op.operationId || (op.tags ?? []).includes(entry))
    for (const hit of hits) mentioned.add(hit)
    return hits.length > 0
  }
  for (const [path, item] of Object.entries(document.paths)) {
    if (item === null || typeof item !== 'object') continue
    for (const method of METHODS) {
      const op = item[method] as Operation | undefined
      if (!op || typeof op !== 'object') continue
      const METHOD = method.toUpperCase()
      for (const name of [op.operationId, ...(op.tags ?? [])]) if (typeof name === 'string') names.add(name)
      const label = op.operationId ? `operation "${op.operationId}"` : `${METHOD} ${path}`
      const pinned = op.operationId !== undefined && Object.hasOwn(source.classes, op.operationId) ? source.classes[op.operationId] : undefined
      if (pinned) mentioned.add(op.operationId!)
      const excluded = matches(source.exclude, op)
      if (source.include && !matches(source.include, op)) continue
      if (excluded) continue
      const key = operationKey(prefix, op.operationId ?? `${method}_${path}`)
      if (seen.has(key)) {
        problems.push(`${label}: its key "${key}" is also ${seen.get(key)}'s; skipped`)
        continue
      }
      seen.set(key, label)
      const serverBase = source.baseUrl ?? serverUrl(op.servers ?? (item.servers as OpenApiDocument['servers']), specUrl) ?? base
      if (!hostAllowed(new URL(serverBase), allowHosts)) {
        problems.push(`${label}: its server ${new URL(serverBase).host} is not in allowHosts (${allowHosts.join(', ')}); skipped`)
        continue
      }
      try {
        const input = inputOf(op, [...((item.parameters as Parameter[] | undefined) ?? [])], v30)
        const security = op.security ?? document.security
        const isPublic = Array.isArray(security) && security.length === 0
        const description = (op.description ?? op.summary ?? '').trim() || `${METHOD} ${path} of the "${source.name}" API.`
        const summary = op.summary?.trim()
        operations.push({
          key,
          ...(summary && summary !== description && { title: summary.slice(0, 200) }),
          description,
          class: pinned ?? classOfMethod(METHOD),
          category: source.name,
          tags: ['openapi', ...(op.tags ?? [])],
          agents: source.agents,
          input: input.schema,
          method: METHOD,
          url: `${serverBase.replace(/\/+$/, '')}${path.startsWith('/') ? path : `/${path}`}`,
          parameters: input.parameters,
          headers: {},
          body: input.body ? { property: 'body' } : null,
          ...(source.auth && !isPublic && withAuth(source.auth, security, document)),
          ...(source.oauth && !isPublic && { oauth: withScopes(source.oauth, security, document) }),
          allowHosts,
          maxResponseBytes: source.maxResponseBytes,
          ...(source.timeoutMs && { timeoutMs: source.timeoutMs }),
        })
      } catch (error) {
        problems.push(`${label}: ${(error as Error).message}; skipped`)
      }
    }
  }
  for (const [list, entries] of [
    ['include', source.include ?? []],
    ['exclude', source.exclude],
    ['classes', Object.keys(source.classes)],
  ] as const) {
    for (const entry of entries)
      if (!mentioned.has(entry)) problems.push(`config ${list}: no operation has the operationId or tag "${entry}"${didYouMean(entry, names)}`)
  }
  return { operations, baseUrl: base, problems }
}

/**
 * The credential an operation sends: the config's auth as it is when it has a type; a secret alone
 * is sent as the first security requirement of the operation (else of the document) that one
 * secret can meet. An operation whose schemes none can is skipped, naming them.
 */
function withAuth(auth: NonNullable<ResolvedOpenApiSource['auth']>, security: unknown[] | undefined, document: OpenApiDocument): { auth?: HttpAuth } {
  if (auth.type) return { auth: { ...auth, type: auth.type } }
  const schemes = document.components?.securitySchemes ?? {}
  const refused: string[] = []
  let anonymous = false
  for (const requirement of security ?? []) {
    const names = requirement !== null && typeof requirement === 'object' ? Object.keys(requirement) : []
    // {} among the alternatives: the operation may be called without credentials.
    if (names.length === 0) anonymous = true
    else if (names.length > 1) refused.push(`${names.map((n) => `"${n}"`).join(' and ')} together (one secret can't meet two schemes)`)
    else {
      const sent = sentAs(Object.hasOwn(schemes, names[0]!) ? schemes[names[0]!] : undefined)
      if (typeof sent !== 'string') return { auth: { ...sent, secret: auth.secret } }
      refused.push(`"${names[0]}" (${sent})`)
    }
  }
  if (anonymous) return {}
  if (refused.length === 0) throw new Error('auth gives a secret without a type, and the document declares no security for the operation: give auth a type')
  throw new Error(
    `its security scheme ${refused.join(', or ')} can't be sent from a secret; give auth a type (bearer, header, query or basic) to send the secret another way`,
  )
}

/**
 * The source's OAuth connection for one operation: its scopes as the config gives them, else those
 * the operation's first security requirement naming an oauth2 or openIdConnect scheme lists.
 */
function withScopes(oauth: SkillOAuth, security: unknown[] | undefined, document: OpenApiDocument): SkillOAuth {
  if (oauth.scopes) return oauth
  const schemes = document.components?.securitySchemes ?? {}
  for (const requirement of security ?? []) {
    if (requirement === null || typeof requirement !== 'object') continue
    for (const [name, scopes] of Object.entries(requirement)) {
      const scheme: unknown = Object.hasOwn(schemes, name) ? schemes[name] : undefined
      const type = scheme !== null && typeof scheme === 'object' ? (scheme as { type?: unknown }).type : undefined
      // A scope that is not a token is refused when the skill is made, skipping the operation.
      if ((type === 'oauth2' || type === 'openIdConnect') && Array.isArray(scopes)) return { ...oauth, scopes: scopes as string[] }
    }
  }
  return oauth
}

/** How a security scheme sends a secret, or why skillplane can't send it. */
function sentAs(scheme: unknown): Omit<HttpAuth, 'secret'> | string {
  if (scheme === null || typeof scheme !== 'object') return 'not in components.securitySchemes'
  const { type, scheme: httpScheme, in: place, name } = scheme as { type?: unknown; scheme?: unknown; in?: unknown; name?: unknown }
  if (type === 'http') {
    const kind = typeof httpScheme === 'string' ? httpScheme.toLowerCase() : ''
    if (kind === 'bearer' || kind === 'basic') return { type: kind }
    return `http ${JSON.stringify(httpScheme)}: only bearer and basic are sent`
  }
  if (type === 'apiKey') {
    if (typeof name !== 'string' || name === '') return 'apiKey without a name'
    if (place === 'header') return { type: 'header', name }
    if (place === 'query') return { type: 'query', name }
    return `apiKey in ${place === 'cookie' ? 'a cookie' : JSON.stringify(place)}: only header and query are sent`
  }
  return `${typeof type === 'string' ? type : 'a scheme without a type'}: not sent from a secret`
}

function inputOf(op: Operation, pathParameters: Parameter[], v30: boolean): { schema: JsonSchema; parameters: InputParameter[]; body: boolean } {
  const byPlace = new Map<string, Parameter>()
  for (const p of [...pathParameters, ...(op.parameters ?? [])]) if (p && typeof p === 'object') byPlace.set(`${p.in}:${p.name}`, p)
  const properties: Record<string, JsonSchema> = {}
  const required: string[] = []
  const parameters: InputParameter[] = []
  for (const p of byPlace.values()) {
    if (p.in === 'cookie') {
      if (p.required) throw new Error(`it needs the cookie "${p.name}", which skillplane does not send`)
      continue
    }
    if (p.in === 'header' && RESERVED_HEADERS.has(p.name.toLowerCase())) continue
    if (p.in !== 'path' && p.in !== 'query' && p.in !== 'header') throw new Error(`parameter "${p.name}" is in "${p.in}", not path, query or header`)
    if (Object.hasOwn(properties, p.name)) throw new Error(`two parameters are named "${p.name}"`)
    if (p.name === '__proto__') throw new Error('a parameter is named "__proto__", which can\'t be an input property')
    const schema = normalize(p.schema ?? jsonContent(p.content)?.schema ?? { type: 'string' }, v30)
    properties[p.name] = p.description && schema.description === undefined ? { ...schema, description: p.description } : schema
    if (p.required || p.in === 'path') required.push(p.name)
    parameters.push({ property: p.name, in: p.in, name: p.name })
  }
  let body = false
  if (op.requestBody) {
    const content = jsonContent(op.requestBody.content)
    if (content) {
      if (Object.hasOwn(properties, 'body')) throw new Error('a parameter is named "body", which holds the request body')
      properties.body = normalize(content.schema ?? {}, v30)
      if (op.requestBody.required) required.push('body')
      body = true
    } else if (op.requestBody.required) {
      throw new Error(`its request body is ${Object.keys(op.requestBody.content ?? {}).join(', ') || 'of no media type'}; only JSON bodies are sent`)
    }
  }
  const schema = { type: 'object', properties, ...(required.length > 0 && { required }), additionalProperties: false }
  const ref = JSON.stringify(schema).match(/"\$ref":"([^"]*)"/)
  if (ref?.[1]!.startsWith('#')) throw new Error(`its schema refers to itself (${ref[1]}), which a skill's input schema can't hold`)
  if (ref) throw new Error(`its schema refers to another document (${ref[1]}), which is not read; bundle the document first`)
  return { schema, parameters, body }
}

function jsonContent(content: Record<string, { schema?: JsonSchema }> | undefined): { schema?: JsonSchema } | undefined {
  const type = Object.keys(content ?? {}).find((t) => /^application\/(?:[\w.+-]*\+)?json\b/i.test(t))
  return type === undefined ? undefined : content![type]
}

/** The first server's URL with its variables at their defaults, made absolute against the spec's URL. */
function serverUrl(servers: OpenApiDocument['servers'], specUrl: URL | null): string | null {
  const server = servers?.[0]
  if (!server || typeof server.url !== 'string') return null
  const url = server.url.replace(/\{([^{}]*)\}/g, (whole, name: string) => server.variables?.[name]?.default ?? whole)
  try {
    const absolute = specUrl ? new URL(url, specUrl) : new URL(url)
    return /^https?:$/.test(absolute.protocol) ? absolute.href : null
  } catch {
    return null
  }
}

/** A copy of an OpenAPI schema as JSON Schema 2020-12: 3.0's `nullable` and boolean exclusive bounds rewritten. */
function normalize(schema: JsonSchema, v30: boolean): JsonSchema {
  // Resolved references share objects: a small document can expand into an enormous schema, which every tool list would carry.
  if (!withinBudget(schema, { left: MAX_SCHEMA_NODES }, 0)) {
    throw new Error(`its schema expands to more than ${MAX_SCHEMA_NODES} nodes (or ${MAX_SCHEMA_DEPTH} levels) once its references are resolved`)
  }
  const copy = JSON.parse(JSON.stringify(schema)) as JsonSchema
  if (v30) rewrite30(copy)
  return copy
}

const MAX_SCHEMA_NODES = 20_000
const MAX_SCHEMA_DEPTH = 64

/** Whether a value has at most `budget.left` nodes counted as its copy would have them (shared ones each time). */
function withinBudget(value: unknown, budget: { left: number }, depth: number): boolean {
  if (--budget.left < 0 || depth > MAX_SCHEMA_DEPTH) return false
  if (value === null || typeof value !== 'object') return true
  for (const child of Array.isArray(value) ? value : Object.values(value)) if (!withinBudget(child, budget, depth + 1)) return false
  return true
}

function rewrite30(schema: unknown): void {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return
  const s = schema as Record<string, unknown>
  if (s.nullable === true) {
    if (typeof s.type === 'string') s.type = [s.type, 'null']
    if (Array.isArray(s.enum) && !s.enum.includes(null)) s.enum = [...s.enum, null]
  }
  delete s.nullable
  for (const [flag, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (s[flag] === true) {
      s[flag] = s[bound]
      delete s[bound]
    } else if (s[flag] === false) delete s[flag]
  }
  for (const key of ['items', 'additionalProperties', 'not']) rewrite30(s[key])
  for (const key of ['allOf', 'anyOf', 'oneOf']) if (Array.isArray(s[key])) for (const sub of s[key]) rewrite30(sub)
  for (const key of ['properties', 'patternProperties']) if (s[key] && typeof s[key] === 'object') for (const sub of Object.values(s[key])) rewrite30(sub)
}
