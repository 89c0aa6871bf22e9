import { createPublicKey } from 'node:crypto'
import type { EmbeddingModelV3, LanguageModelV3 } from '@ai-sdk/provider'
import { z } from 'zod'
import { isDefinedSkill, LOWER_SNAKE_RULE, VALUE_NAME, VALUE_NAME_RULE, type DefinedSkill } from '../skill/index.js'
import { unknownFields } from '../text/index.js'

// The one statement of the config's shape: its input side types skillplane.config.ts
// (define-config.ts), its output side, with defaults filled in, is the resolved config (resolve-config.ts).
// Each object's fields are a shape constant that types its schema, so that the published declarations
// keep their doc comments (tsc drops comments from inferred types); nested objects are documented on their field.

// Unknown fields are refused, each named with the field probably meant (`clas` → `class`).
function strictObject<S extends z.core.$ZodLooseShape>(shape: S): z.ZodObject<S, z.core.$strict> {
  return z.strictObject(shape, { error: unknownFields })
}

/** A service's stop function: awaited when the server stops. */
export type ServiceStop = () => void | Promise<void>
/** Starts a config service; what it returns (if anything) stops it. */
export type ServiceStart = () => void | ServiceStop | Promise<void | ServiceStop>

const positiveInt = z.number().int().positive()
// setTimeout's ceiling: longer durations fire at once.
const duration = positiveInt.max(2_147_483_647)
const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name (letters, digits and _, not starting with a digit)')
const httpUrl = z.url({ protocol: /^https?$/ })
/** A value in the config, or a reference to a secret in skillplane's store, opened when it is used. */
// `prefix` puts the fixed part of a header before the secret (`Bearer `), so the secret is only the token.
const secretRef = strictObject({
  secret: z.string().regex(VALUE_NAME, `a secret name (${VALUE_NAME_RULE})`),
  prefix: z.string().max(64).optional(),
})
const valueOrSecret = z.union([z.string(), secretRef], { error: 'must be a string or { secret: NAME, prefix? }' })

const perMTok = z.number().finite().nonnegative('a price is a number of US dollars from 0')
/** What a model's tokens cost, in US dollars per million tokens; cached and cache-write input default to the input price. */
const pricingSchema = strictObject({
  inputPerMTok: perMTok,
  outputPerMTok: perMTok,
  cachedInputPerMTok: perMTok.optional(),
  cacheWritePerMTok: perMTok.optional(),
})

const modelSettingsShape = {
  /** openai, anthropic or openai-compatible. */
  provider: z.enum(['openai', 'anthropic', 'openai-compatible'], 'unknown provider: use openai, anthropic or openai-compatible'),
  /** The provider's model id, e.g. "gpt-4.1-mini" or "claude-sonnet-4-5". */
  model: z.string().trim().min(1, "the provider's model id is required"),
  /**
   * The environment variable holding the API key. Default OPENAI_API_KEY or ANTHROPIC_API_KEY;
   * none for openai-compatible (a local server may need no key).
   */
  apiKeyEnv: envName.optional(),
  /** The API's base URL: required for openai-compatible, optional otherwise (a proxy). */
  baseURL: httpUrl.optional(),
  /** Its prices, for the cost of each model step of a run; none built in (prices change). Default none: no cost. */
  pricing: pricingSchema.optional(),
}

export const modelSettingsSchema: z.ZodObject<typeof modelSettingsShape, z.core.$strict> = strictObject(modelSettingsShape).superRefine((model, ctx) => {
  if (model.provider === 'openai-compatible' && !model.baseURL)
    ctx.addIssue({ code: 'custom', path: ['baseURL'], message: 'openai-compatible needs the base URL of its API' })
})

const languageModel = z.custom<LanguageModelV3>(
  (value) =>
    typeof value === 'object' && value !== null && 'specificationVersion' in value && typeof (value as { doGenerate?: unknown }).doGenerate === 'function',
)

const embeddingModelObject = z.custom<EmbeddingModelV3>(
  (value) => typeof value === 'object' && value !== null && 'specificationVersion' in value && typeof (value as { doEmbed?: unknown }).doEmbed === 'function',
)
const embeddingSettingsSchema = strictObject({
  provider: z.enum(['openai', 'openai-compatible']),
  model: z.string().min(1),
  apiKeyEnv: envName.optional(),
  baseURL: z.url({ protocol: /^https?$/ }).optional(),
}).superRefine((model, ctx) => {
  if (model.provider === 'openai-compatible' && !model.baseURL)
    ctx.addIssue({ code: 'custom', path: ['baseURL'], message: 'openai-compatible needs the base URL of its API' })
})
const embeddingSetting = z.custom<z.input<typeof embeddingModelObject> | z.input<typeof embeddingSettingsSchema>>().transform((value, ctx) => {
  const model = embeddingModelObject.safeParse(value)
  return model.success ? model.data : parseWithin(embeddingSettingsSchema, value, ctx)
})

// An AI SDK model object as it is, or provider settings whose errors name their field (a union would say only "Invalid input").
const agentModel = z.custom<z.input<typeof languageModel> | z.input<typeof modelSettingsSchema>>().transform((value, ctx) => {
  const model = languageModel.safeParse(value)
  return model.success ? model.data : parseWithin(modelSettingsSchema, value, ctx)
})

const agentShape = {
  /** Display name, e.g. "Fleet Autonomy"; its id is the kebab-case slug ("fleet-autonomy"). */
  name: z.string().trim().min(1).max(100),
  /** Other names it answers to, case-insensitively. Default none. */
  aliases: z.array(z.string().trim().min(1).max(100)).default([]),
  description: z.string().default(''),
  /** The model the agent runs with (`skillplane run`), or an AI SDK language model object. */
  model: agentModel.optional(),
  /** Its instructions; the instruction-skill catalog it may use is appended. */
  systemPrompt: z.string().optional(),
  /**
   * Skills bound to it by key, beside the ones whose definitions name it in `agents`: the way to bind
   * skills whose definitions you don't write (an edge's host skills, a pack, an MCP tool). Default none.
   */
  skills: z.array(z.string().min(1)).default([]),
  /** Most model steps (tool rounds) in one run. Default 10. */
  maxSteps: z.number().int().min(1).max(100).default(10),
  /**
   * What the agent's model answers of its tool calls' sampling requests (an imported MCP server asking
   * for a completion): at most `maxRequestsPerCall` per tool call (0: none), each at most `maxTokens` long.
   */
  sampling: strictObject({
    maxRequestsPerCall: z.number().int().min(0).max(1000).default(10),
    maxTokens: z.number().int().min(1).max(1_000_000).default(4096),
  }).default({ maxRequestsPerCall: 10, maxTokens: 4096 }),
  /** The prices of an AI SDK model object given as `model` (provider settings carry theirs as `model.pricing`). */
  pricing: pricingSchema.optional(),
}

export const agentSchema: z.ZodObject<typeof agentShape, z.core.$strict> = strictObject(agentShape).superRefine((agent, ctx) => {
  if (agent.pricing && agent.model && !languageModel.safeParse(agent.model).success)
    ctx.addIssue({ code: 'custom', path: ['pricing'], message: 'give the prices of provider settings as model.pricing' })
})

const mcpServerCommon = {
  /** lower_snake: the prefix of its skill keys and their category. */
  name: z
    .string()
    .regex(/^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/, `must be lower_snake: ${LOWER_SNAKE_RULE} (it prefixes the skill keys)`)
    .max(32),
  /** Agents bound to every tool of this server. */
  agents: z.array(z.string().min(1)).default([]),
  /** Per tool (by the server's tool name): a class instead of the one its annotations imply, more agents. */
  tools: z
    .record(z.string().min(1), strictObject({ class: z.enum(['safe', 'mutating', 'dangerous']).optional(), agents: z.array(z.string().min(1)).default([]) }))
    .default({}),
  /** Its resources' read skill `<name>_read_resource`: a class instead of safe, more agents. */
  resources: strictObject({ class: z.enum(['safe', 'mutating', 'dangerous']).optional(), agents: z.array(z.string().min(1)).default([]) }).optional(),
  /** Its prompts' skill (`<name>_get_prompt`, when the server has prompts): a class instead of `safe`, more agents. */
  prompts: strictObject({ class: z.enum(['safe', 'mutating', 'dangerous']).optional(), agents: z.array(z.string().min(1)).default([]) }).optional(),
  /** Deadline of one call. Default: `defaults.timeoutMs`. */
  timeoutMs: duration.optional(),
  /** How long connecting (and listing tools) may take. Default 10 000. */
  connectTimeoutMs: duration.default(10_000),
}

const stdioServerShape = {
  ...mcpServerCommon,
  /** The program to start (no shell; found on PATH). */
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  /** Variables for the server, besides PATH, HOME, USER, LOGNAME, SHELL and TERM; `{ secret: NAME }` reads the global secret. */
  env: z.record(envName, valueOrSecret).optional(),
  cwd: z.string().min(1).optional(),
}

const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/

/**
 * The server's authorization as the MCP specification describes it: its authorization server is
 * discovered from its protected-resource metadata (RFC 9728). `account`: `person` (each caller
 * connects their own account; the default) or `service` (one connection an admin makes for everyone).
 * `clientId` (and `clientSecret`, a global secret): a client registered by hand, for an
 * authorization server without dynamic client registration.
 */
const mcpOAuthSchema = strictObject({
  account: z.enum(['person', 'service']).default('person'),
  /** Asked for at connecting; default: what the server's 401 or its metadata names. */
  scopes: z.array(z.string().regex(SCOPE_TOKEN, 'a scope token (no spaces or quotes)')).optional(),
  clientId: z.string().min(1).optional(),
  clientSecret: strictObject({ secret: z.string().regex(VALUE_NAME, `a secret name (${VALUE_NAME_RULE})`) }).optional(),
}).refine((oauth) => oauth.clientSecret === undefined || oauth.clientId !== undefined, {
  path: ['clientSecret'],
  message: 'needs clientId (a client secret belongs to a client registered by hand)',
})

const httpServerShape = {
  ...mcpServerCommon,
  /** The MCP endpoint; credentials belong in headers. */
  url: httpUrl.refine((url) => !/^[a-z]+:\/\/[^/]*@/i.test(url), 'must not carry credentials: put them in headers (they are never shown)'),
  /** Sent with every request; never shown. `{ secret: NAME }` reads the global secret at each connection. */
  headers: z.record(z.string(), valueOrSecret).optional(),
  /** Connect over OAuth 2 as the MCP authorization specification says, per person or with a service account. */
  oauth: mcpOAuthSchema.optional(),
}

/** A local server started as a subprocess (stdio). */
export const stdioServerSchema: z.ZodObject<typeof stdioServerShape, z.core.$strict> = strictObject(stdioServerShape)
/** A remote server (Streamable HTTP). */
export const httpServerSchema: z.ZodObject<typeof httpServerShape, z.core.$strict> = strictObject(httpServerShape)

// Validated as one object, so that an error names its field; which transport it is follows from command or url.
const anyMcpServer = stdioServerSchema
  .extend(httpServerSchema.shape)
  .partial({ command: true, url: true })
  .superRefine((server, ctx) => {
    if ((server.command === undefined) === (server.url === undefined)) {
      ctx.addIssue({ code: 'custom', message: 'give either command (a stdio server) or url (a Streamable HTTP server)' })
    }
    const wrong = server.url !== undefined ? (['args', 'env', 'cwd'] as const) : (['headers', 'oauth'] as const)
    for (const field of wrong) {
      if (server[field] !== undefined) ctx.addIssue({ code: 'custom', path: [field], message: `does not apply to a ${server.url ? 'url' : 'command'} server` })
    }
    // The token is the server's Authorization header: a configured one would fight it.
    if (server.oauth && Object.keys(server.headers ?? {}).some((name) => name.toLowerCase() === 'authorization')) {
      ctx.addIssue({ code: 'custom', path: ['headers'], message: 'Authorization is sent by the oauth connection: remove it from headers' })
    }
  })
  .transform(({ command, args, env, cwd, url, headers, oauth, ...common }) =>
    url !== undefined
      ? { ...common, transport: 'http' as const, url, headers: headers ?? {}, ...(oauth && { oauth }) }
      : { ...common, transport: 'stdio' as const, command: command!, args: args ?? [], env: env ?? {}, ...(cwd && { cwd }) },
  )

export const mcpServerSchema = z
  .custom<z.input<typeof stdioServerSchema> | z.input<typeof httpServerSchema>>()
  .transform((value, ctx) => parseWithin(anyMcpServer, value, ctx))

const skillClass = z.enum(['safe', 'mutating', 'dangerous'])
const httpMethod = z
  .string()
  .transform((m) => m.toUpperCase())
  .pipe(z.enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'], 'a method: GET, HEAD, POST, PUT, PATCH or DELETE'))
// A host name (or *.suffix) with an optional port, as Host headers name them.
const allowHost = z
  .string()
  .toLowerCase()
  .regex(/^(\*\.)?[a-z0-9.-]+(:\d{1,5})?$|^\[[0-9a-f:.]+\](:\d{1,5})?$/, 'a host name with an optional port (example.com, *.example.com, 127.0.0.1:8080)')
const lowerSnake = z.string().regex(/^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/, `must be lower_snake: ${LOWER_SNAKE_RULE}`)
// A URL that may carry {name} placeholders in its path; credentials belong in headers.
const urlTemplate = z
  .string()
  .refine(
    (url) => /^https?:\/\/[^/?#{}]+(?:[/?#]|$)/i.test(url) && URL.canParse(url.replace(/\{[^{}]*\}/g, 'x')),
    'an http(s) URL; {name} placeholders only in its path',
  )
  .refine((url) => !/^[a-z]+:\/\/[^/]*@/i.test(url), 'must not carry credentials: put them in headers (they are never shown)')
// A source's OAuth connection: the access token is sent as `Authorization: Bearer` instead of a static secret.
const oauthScope = z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/, 'a scope token (no spaces or quotes)')
const oauthRefShape = {
  /** The provider's name in `oauth.providers`. */
  provider: lowerSnake.max(64),
  /** Scopes the calls need. Default: the provider's default scopes. */
  scopes: z.array(oauthScope).optional(),
  /** `person` (default): each caller's own connection; `service`: one connection an admin makes for everyone. */
  account: z.enum(['person', 'service'], 'an account: person or service').optional(),
}
const oauthRef: z.ZodObject<typeof oauthRefShape, z.core.$strict> = strictObject(oauthRefShape)

const egressShape = {
  /** Hosts calls may reach (host or host:port, *.suffix for subdomains). Default: the host of the URL. */
  allowHosts: z.array(allowHost).optional(),
  /** Deadline of one call. Default: `defaults.timeoutMs`. */
  timeoutMs: duration.optional(),
  /** A larger response body fails the call. Default 1 048 576. */
  maxResponseBytes: positiveInt.max(256 * 1024 * 1024).default(1_048_576),
  /** Agents bound to the skills. */
  agents: z.array(z.string().min(1)).default([]),
}

const httpSkillShape = {
  ...egressShape,
  /** lower_snake skill key. */
  key: lowerSnake.max(64),
  title: z.string().trim().min(1).max(200).optional(),
  description: z.string().trim().min(1, 'a description is required: it is what an LLM reads'),
  method: httpMethod,
  /** The URL; `{name}` in its path takes the input property `name`, URL-encoded. */
  url: urlTemplate,
  /** Input properties sent as query parameters (arrays repeat the parameter; absent ones are left out). */
  query: z.array(z.string().min(1)).default([]),
  /** Request headers; `{ secret: NAME }` reads the secret for the caller at each call (the skill declares it). */
  headers: z
    .record(
      z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, "a header name (letters, digits and ! # $ % & ' * + - . ^ _ ` | ~; no spaces or colons)"),
      valueOrSecret,
    )
    .default({}),
  /** An OAuth connection whose access token is sent as `Authorization: Bearer` (instead of an authorization header). */
  oauth: oauthRef.optional(),
  /**
   * The JSON body: a list of input properties, or `{ bodyField: inputProperty }`. Default for POST,
   * PUT and PATCH: the input properties not used in the path or query; none for the other methods.
   */
  body: z.union([z.array(z.string().min(1)), z.record(z.string().min(1), z.string().min(1))]).optional(),
  /** The input's JSON Schema (an object schema). Default: no properties. */
  input: z.record(z.string(), z.unknown()).default({ type: 'object', properties: {}, additionalProperties: false }),
  /** Default from the method: GET and HEAD safe, DELETE dangerous, others mutating. */
  class: skillClass.optional(),
  category: z.string().trim().min(1).max(100).default('http'),
  tags: z.array(z.string().min(1)).default([]),
}

/** A declarative HTTP call as a skill. */
export const httpSkillSchema: z.ZodObject<typeof httpSkillShape, z.core.$strict> = strictObject(httpSkillShape).superRefine((skill, ctx) => {
  const input = skill.input as { type?: unknown; properties?: Record<string, unknown>; required?: unknown }
  if (input.type !== 'object') ctx.addIssue({ code: 'custom', path: ['input', 'type'], message: 'the input schema must be of type "object"' })
  const properties = input.properties ?? {}
  const required = Array.isArray(input.required) ? input.required : []
  for (const [, name] of skill.url.matchAll(/\{([^{}]*)\}/g)) {
    if (!Object.hasOwn(properties, name!) || !required.includes(name))
      ctx.addIssue({ code: 'custom', path: ['url'], message: `the placeholder {${name}} must be a required property of input` })
  }
  if (/[?#].*\{/.test(skill.url)) ctx.addIssue({ code: 'custom', path: ['url'], message: 'placeholders belong in the path; use query for parameters' })
  const named = (list: string[], path: string) => {
    for (const name of list)
      if (!Object.hasOwn(properties, name)) ctx.addIssue({ code: 'custom', path: [path], message: `"${name}" is not a property of input` })
  }
  named(skill.query, 'query')
  if (skill.oauth && Object.keys(skill.headers).some((name) => name.toLowerCase() === 'authorization'))
    ctx.addIssue({ code: 'custom', path: ['headers'], message: 'oauth sends the authorization header: leave it out of headers' })
  if (skill.body !== undefined) {
    if (skill.method === 'GET' || skill.method === 'HEAD') ctx.addIssue({ code: 'custom', path: ['body'], message: `a ${skill.method} request has no body` })
    named(Array.isArray(skill.body) ? skill.body : Object.values(skill.body), 'body')
  }
})

const openApiAuth = strictObject({
  /**
   * bearer: Authorization: Bearer VALUE; header: header `name`; query: query parameter `name`; basic: the secret holds user:password.
   * Without it, each operation sends the secret as the security scheme the document declares for it.
   */
  type: z.enum(['bearer', 'header', 'query', 'basic'], 'an auth type: bearer, header, query or basic').optional(),
  secret: secretRef.shape.secret,
  name: z.string().min(1).optional(),
})

const openApiSourceShape = {
  ...egressShape,
  /** lower_snake: the prefix of its skill keys (unless `prefix` is given) and their category. */
  name: lowerSnake.max(32),
  /** The OpenAPI 3.0 or 3.1 document (JSON or YAML): a file path (relative to the working directory) or an http(s) URL. */
  spec: z.string().min(1),
  /** Where calls go. Default: the document's first server (relative to the spec URL). */
  baseUrl: httpUrl.refine((url) => !/^[a-z]+:\/\/[^/]*@/i.test(url), 'must not carry credentials: use auth').optional(),
  /** The credential sent with every operation except those whose `security` is `[]`; `{ secret }` alone: sent as the document's scheme says. */
  auth: openApiAuth
    .refine((auth) => (auth.type === 'header' || auth.type === 'query') === (auth.name !== undefined), {
      message: 'name (the header or query parameter) is required for header and query auth, and only for them',
      path: ['name'],
    })
    .optional(),
  /**
   * An OAuth connection whose access token is sent as `Authorization: Bearer` with every operation except
   * those whose `security` is `[]` (instead of auth). Without `scopes`, each operation asks for the scopes
   * its security requirement lists for an oauth2 or openIdConnect scheme (else the provider's defaults).
   */
  oauth: oauthRef.optional(),
  /** Only operations whose operationId or a tag is listed. Default all. */
  include: z.array(z.string().min(1)).optional(),
  /** Leave out operations whose operationId or a tag is listed (wins over include). */
  exclude: z.array(z.string().min(1)).default([]),
  /** Per operationId: a class instead of the one its method implies. */
  classes: z.record(z.string().min(1), skillClass).default({}),
  /** The prefix of skill keys. Default: name. */
  prefix: lowerSnake.max(32).optional(),
}

/** An OpenAPI document whose operations become skills. */
export const openApiSourceSchema: z.ZodObject<typeof openApiSourceShape, z.core.$strict> = strictObject(openApiSourceShape).refine(
  (source) => !(source.auth && source.oauth),
  { message: 'give auth (a secret) or oauth (a connection), not both', path: ['oauth'] },
)

// Loopback hosts, where an identity provider may speak plain HTTP (a local one, or one in tests).
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]'])
const claimName = z.string().trim().min(1, 'a claim name').max(200)
const groupList = z.array(z.string().min(1)).default([])

const oidcShape = {
  /** The identity provider's issuer URL, exactly as its tokens' `iss` says it: https (http only on 127.0.0.1 or localhost). */
  issuer: z
    .url({ protocol: /^https?$/, error: 'an http(s) URL' })
    .refine((url) => !/^[a-z]+:\/\/[^/]*@/i.test(url), 'must not carry credentials')
    .refine(
      (url) => !URL.canParse(url) || url.startsWith('https:') || LOOPBACK.has(new URL(url).hostname),
      'must be https (http only for 127.0.0.1 or localhost)',
    ),
  /** This server's client id at the provider (the console's sign-in). */
  clientId: z.string().trim().min(1, 'the client id at the identity provider is required'),
  /** The environment variable holding the client secret; none for a public client. */
  clientSecretEnv: envName.optional(),
  /** Scopes clients ask for, also advertised in `/.well-known/oauth-protected-resource`. Default openid, profile, email. */
  scopes: z
    .array(z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/, 'a scope token (no spaces or quotes)'))
    .min(1)
    .default(['openid', 'profile', 'email']),
  /** The `aud` access tokens must carry. Default: this server's resource identifiers (`http.publicUrl`, and it with `/mcp`). */
  audience: z.string().trim().min(1).optional(),
  /** The claim listing the user's groups. Default "groups". */
  groupsClaim: claimName.default('groups'),
  /** A claim whose value is a skillplane role itself (admin, operator or viewer), besides the groups. */
  roleClaim: claimName.optional(),
  /** Groups granting each role; a user gets the highest role any of their groups grants. */
  roles: strictObject({ admin: groupList, operator: groupList, viewer: groupList }).prefault({}),
  /** A claim naming an agent (by name or alias): such a token acts for that agent, which must exist. Default: tokens never act for agents. */
  agentClaim: claimName.optional(),
}

const oidcSchema: z.ZodObject<typeof oidcShape, z.core.$strict> = strictObject(oidcShape).superRefine((oidc, ctx) => {
  const { admin, operator, viewer } = oidc.roles
  if (admin.length + operator.length + viewer.length === 0 && oidc.roleClaim === undefined)
    ctx.addIssue({ code: 'custom', path: ['roles'], message: 'map at least one group to a role (or set roleClaim): otherwise no signed-in user has a role' })
})

const scopeToken = z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/, 'a scope token (no spaces or quotes)')
const serverUrl = z
  .url({ protocol: /^https?$/, error: 'an http(s) URL' })
  .refine((url) => !/^[a-z]+:\/\/[^/]*@/i.test(url), 'must not carry credentials')
  .refine(
    (url) => !URL.canParse(url) || url.startsWith('https:') || LOOPBACK.has(new URL(url).hostname),
    'must be https (http only for 127.0.0.1 or localhost)',
  )

const oauthProviderShape = {
  /** Shown to people: "GitHub". Default: the provider's name. */
  title: z.string().trim().min(1).max(100).optional(),
  /** The authorization server's issuer: its metadata is discovered (RFC 8414, then OpenID discovery). Or give the endpoints. */
  issuer: serverUrl.optional(),
  authorizationEndpoint: serverUrl.optional(),
  tokenEndpoint: serverUrl.optional(),
  /** RFC 7009: where disconnecting revokes the tokens (discovered with an issuer). */
  revocationEndpoint: serverUrl.optional(),
  /** skillplane's client id at the provider. */
  clientId: z.string().trim().min(1, 'the client id skillplane has at the provider is required'),
  /** The client secret, from the secrets store: `{ secret: NAME }` (global). None for a public client. */
  clientSecret: secretRef.pick({ secret: true }).optional(),
  /** Scopes asked for when a skill names none. */
  scopes: z.array(scopeToken).default([]),
  /** RFC 8707: the resource the tokens are for, sent with every request to the provider. */
  resource: serverUrl.optional(),
  /** More parameters of the authorization request, such as Google's `{ access_type: 'offline', prompt: 'consent' }` (without which it issues no refresh token). */
  authorizationParams: z
    .record(z.string().regex(/^[a-z_]+$/, 'a parameter name (a-z and _)'), z.string())
    .refine(
      (p) => !['state', 'code_challenge', 'code_challenge_method', 'redirect_uri', 'client_id', 'response_type', 'scope'].some((k) => k in p),
      "state, PKCE, client, redirect and scope parameters are skillplane's own",
    )
    .default({}),
}

const oauthProviderSchema = strictObject(oauthProviderShape).superRefine((p, ctx) => {
  if (p.issuer === undefined && (p.authorizationEndpoint === undefined || p.tokenEndpoint === undefined))
    ctx.addIssue({ code: 'custom', path: ['issuer'], message: 'give the issuer (its metadata is discovered) or both authorizationEndpoint and tokenEndpoint' })
})

const configShape = {
  /** The code skills, made with defineSkill(). */
  skills: z
    // DefinedSkill<any, any>: a skill's run() takes its own input type, so no narrower element type admits them all.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    .array(z.custom<DefinedSkill<any, any>>(isDefinedSkill, { message: 'not a skill made with defineSkill()' }))
    .default([]),
  /** Named consumers of skills; an agent with a `model` can be run. */
  agents: z.array(agentSchema).default([]),
  /** `timeoutMs`: the deadline of a call when the skill sets none. Default 30 000. */
  defaults: strictObject({ timeoutMs: duration.default(30_000) }).prefault({}),
  /**
   * `maxResultBytes`: results larger than this (UTF-8 bytes of their JSON) are stored truncated. Default 65 536.
   * Retention (all optional; none set keeps every row): `retentionDays` deletes calls started longer ago, `maxRows`
   * then deletes the oldest beyond that many, daily on one manager; `exportDir` receives them as JSON lines first.
   */
  audit: strictObject({
    maxResultBytes: positiveInt.default(65_536),
    retentionDays: positiveInt.max(36_500).optional(),
    maxRows: positiveInt.optional(),
    exportDir: z.string().min(1).optional(),
  }).prefault({}),
  /**
   * `maxBodyBytes`: the largest accepted request body (default 1 MiB). `allowedHosts`: host names
   * `/mcp` answers besides loopback ones (DNS-rebinding defence); `allowedOrigins`: browser origins
   * `/mcp` accepts besides the page's own address; `publicUrl`: the origin clients reach this server at
   * (default: the address it listens on), which OAuth access tokens name as their audience.
   */
  http: strictObject({
    maxBodyBytes: positiveInt.default(1_048_576),
    allowedHosts: z.array(z.string().regex(/^[^\s/:]+$|^\[[0-9a-fA-F:.]+\]$/, 'a host name without port or scheme')).default([]),
    // As browsers send them: lower case, no default port.
    // The address clients reach: what OAuth access tokens name as their audience.
    publicUrl: z
      .string()
      .regex(/^https?:\/\/[^\s/@]+\/?$/, 'an origin such as https://skillplane.example.com (scheme, host, optional port; no path)')
      .transform((url) => new URL(url).origin)
      .optional(),
    allowedOrigins: z
      .array(
        z
          .string()
          .regex(/^https?:\/\/[^\s/]+$/, 'an origin such as https://app.example.com (scheme, host, optional port)')
          .transform((o) => new URL(o).origin),
      )
      .default([]),
  }).prefault({}),
  /**
   * Signing in with the organisation's identity provider. `oidc`: its issuer and claims; with it, `/mcp` and
   * `/api` also accept its JWT access tokens (docs/identity.md).
   */
  auth: strictObject({ oidc: oidcSchema.optional() }).prefault({}),
  /**
   * OAuth 2 providers skills connect with (docs/connections.md): `providers`, each named once (lower_snake) with its issuer or
   * endpoints, client id and secret, and default scopes; `linkTtlMs`, how long a connect link and a started flow stay valid (default 10 minutes).
   */
  oauth: strictObject({
    providers: z.record(lowerSnake.max(64), oauthProviderSchema).default({}),
    linkTtlMs: duration.default(600_000),
  }).prefault({}),
  /**
   * Prometheus metrics at `/metrics`. `enabled` (default true); `listen`: a separate address such as
   * `127.0.0.1:9464` that serves them without a key; without it the main server serves them to admin keys.
   */
  metrics: strictObject({
    enabled: z.boolean().default(true),
    listen: z
      .string()
      .regex(/^(?:[^\s/:[\]]+|\[[0-9a-fA-F:.]+\]):\d{1,5}$/, 'host:port, such as 127.0.0.1:9464 or [::1]:9464')
      .refine((a) => Number(a.slice(a.lastIndexOf(':') + 1)) <= 65_535, 'the port is at most 65535')
      .optional(),
  }).prefault({}),
  /**
   * `expiresAfterMs`: a pending request expires after this long (default 24 h); `waitTimeoutMs`: how
   * long a call with `wait: true` waits for the decision (default 180 000); `webhookUrl`: receives a
   * JSON POST when a request is created and when it is decided.
   */
  approvals: strictObject({
    expiresAfterMs: positiveInt.default(24 * 3_600_000),
    waitTimeoutMs: duration.default(180_000),
    webhookUrl: httpUrl.optional(),
  }).prefault({}),
  /**
   * Folders of SKILL.md instruction skills (a skill folder, or a folder of them), relative to the
   * working directory; `agents` may see every skill under that folder.
   */
  skillDirs: z
    .array(
      z.union([
        z
          .string()
          .min(1)
          .transform((path) => ({ path, agents: [] as string[] })),
        strictObject({ path: z.string().min(1), agents: z.array(z.string().min(1)).default([]) }),
      ]),
    )
    .default([]),
  /** Also load the project's conventional `.agents/skills` folder. Default false. */
  projectSkills: z.boolean().default(false),
  /** Folders of skill packs (folders with skill.json), relative to the working directory. */
  packDirs: z.array(z.string().min(1)).default([]),
  /** Variables SKILL.md.template files may use as {{vars.NAME}}. */
  templateVars: z
    .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a variable name (letters, digits and _, not starting with a digit)'), z.string())
    .default({}),
  /**
   * How run_skill_script runs an instruction skill's scripts: `envAllow`, the environment variables
   * passed through besides a minimal PATH (default none); `timeoutMs`, the deadline of one run (default 60 000).
   */
  skillScripts: strictObject({ envAllow: z.array(envName).default([]), timeoutMs: duration.default(60_000) }).prefault({}),
  /** MCP servers whose tools become skills keyed `<name>_<tool>`, gated and audited like any other. */
  mcpServers: z
    .array(mcpServerSchema)
    .default([])
    .refine((servers) => new Set(servers.map((s) => s.name)).size === servers.length, 'MCP server names must be unique')
    // Server "a" with tool "b_x" and server "a_b" with tool "x" would both be a_b_x.
    .refine(
      (servers) => !servers.some((a) => servers.some((b) => b.name.startsWith(`${a.name}_`))),
      "an MCP server name must not be another one's followed by _ (their skill keys could collide)",
    ),
  /** Declarative HTTP skills: a method and URL with path, query, header and body mapping. (`http` holds the server's own settings.) */
  httpSkills: z
    .array(httpSkillSchema)
    .default([])
    .refine((skills) => new Set(skills.map((s) => s.key)).size === skills.length, 'HTTP skill keys must be unique'),
  /** OpenAPI documents whose operations become skills keyed `<prefix>_<operation_id>`. */
  openapi: z
    .array(openApiSourceSchema)
    .default([])
    .refine((sources) => new Set(sources.map((s) => s.name)).size === sources.length, 'OpenAPI source names must be unique'),
  /**
   * Edge agents: `heartbeatMs`, how often the manager pings each edge (a silent one is dropped after
   * two missed pings; default 10 000); `maxInFlight`, the calls one edge runs at once (default 64).
   */
  edges: strictObject({ heartbeatMs: z.number().int().min(100).max(60_000).default(10_000), maxInFlight: positiveInt.max(10_000).default(64) }).prefault({}),
  /**
   * Skill discovery (`discover_skills`): `usageHalfLifeDays`, how fast usage evidence fades (default 30);
   * `embedding`, an optional embedding model for a semantic leg (provider settings or an AI SDK
   * embedding model object); `toolThreshold`, how many callable tools an MCP session or agent run
   * may have before it gets a core set plus discovery instead (default 64); `coreTools`, the skills
   * always in that core set; `ranking`, overrides of the ranking parameters (BM25 `k1` and `b`, field
   * weights, the weight of learned requests and of the most similar ones, prefix and fuzzy matching,
   * relations; docs/discovery.md).
   */
  discovery: strictObject({
    usageHalfLifeDays: z.number().positive().max(3650).default(30),
    embedding: embeddingSetting.optional(),
    ranking: strictObject({
      k1: z.number().min(0).max(10).optional(),
      b: z.number().min(0).max(1).optional(),
      fields: strictObject(
        Object.fromEntries(
          ['key', 'title', 'description', 'tags', 'category', 'args', 'prompt', 'source'].map((f) => [f, z.number().min(0).max(100).optional()]),
        ),
      ).optional(),
      usage: z.number().min(0).max(100).optional(),
      prefix: z.boolean().optional(),
      fuzzyFrom: z.number().int().min(0).max(100).optional(),
      neighbours: z.number().min(0).max(10).optional(),
      relations: z.number().min(0).max(1).optional(),
    }).optional(),
    toolThreshold: positiveInt.max(100_000).default(64),
    coreTools: z.array(z.string().min(1)).default([]),
  }).prefault({}),
  /**
   * Shared memory (`ctx.memory`, memory_get/memory_set): `maxValueBytes`, the largest value (UTF-8
   * bytes of its JSON; default 65 536); `maxEntriesPerPool`, the most live entries one pool holds (default 10 000);
   * `maxPools`, the most pools holding entries at once (default 100).
   */
  memory: strictObject({
    maxValueBytes: positiveInt.max(16 * 1024 * 1024).default(65_536),
    maxEntriesPerPool: positiveInt.max(10_000_000).default(10_000),
    maxPools: positiveInt.max(100_000).default(100),
  }).prefault({}),
  /**
   * What the server runs beside it (a local service the skills call, a dependency of the demo):
   * `serve` and `mcp` start each in order before the skill sources load and stop them in reverse
   * when they stop; one-shot commands never start them. `start` may return a function that stops it.
   */
  services: z
    .array(
      strictObject({
        name: z.string().trim().min(1).max(100),
        start: z.custom<ServiceStart>((value) => typeof value === 'function', { message: 'must be a function: start() { ...; return stop }' }),
      }),
    )
    .default([])
    .refine((services) => new Set(services.map((s) => s.name)).size === services.length, 'service names must be unique'),
  /** Ed25519 public keys (PEM) whose signatures make an SOP valid. */
  sopKeys: z
    .array(
      strictObject({
        name: z.string().trim().min(1).max(100),
        publicKey: z.string().refine(isEd25519PublicKey, { message: 'not an Ed25519 public key in PEM form' }),
      }),
    )
    .default([]),
}

export const configSchema: z.ZodObject<typeof configShape, z.core.$strict> = strictObject(configShape)

/** Parse with `schema` inside a transform, its errors reported at the transform's path. */
function parseWithin<S extends z.ZodType>(schema: S, value: unknown, ctx: z.RefinementCtx): z.output<S> {
  const parsed = schema.safeParse(value)
  if (parsed.success) return parsed.data
  for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path })
  return z.NEVER
}

function isEd25519PublicKey(pem: string): boolean {
  try {
    return createPublicKey(pem).asymmetricKeyType === 'ed25519'
  } catch {
    return false
  }
}
