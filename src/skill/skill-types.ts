import type { z } from 'zod'
import type { ErrorCode } from '../errors/index.js'
import type { CallerClient } from './caller-client.js'

export type SkillClass = 'safe' | 'mutating' | 'dangerous'
export type SkillScope = 'manager' | 'host'
/** Which kind of source registered a skill (`GET /api/skills?source=`); the key of its source in the sources report. */
export type SkillSourceKind = 'code' | 'agent-skill' | 'pack' | 'mcp' | 'http' | 'edge'
export type JsonSchema = Record<string, unknown>

/** An edge (a remote host running `skillplane edge`) as calls and policies name it. */
export interface EdgeInfo {
  id: string
  name: string
  labels: Record<string, string>
}

/** A zod schema or a plain JSON Schema object (for skills that come from data). */
export type SchemaLike = z.ZodType | JsonSchema

export type InferInput<S> = S extends z.ZodType ? z.output<S> : Record<string, unknown>
export type InferOutput<S> = S extends z.ZodType ? z.input<S> : unknown

export type CallerRole = 'viewer' | 'operator' | 'admin'

/** How a caller proved who it is: an API key (later also a console session or an OAuth token). */
export type CallerAuth = 'key' | 'session' | 'token'

/** What an authenticated caller carries beside its id; absent for in-process callers (the library, the local CLI). */
export interface CallerIdentity {
  auth?: CallerAuth
  /** The API key it authenticated with. */
  keyId?: string
  /** The user's name to show (their display name, else their name). */
  displayName?: string
}

/**
 * Who is calling: a person (by API key or the local CLI), whose id and name are their user's, or an
 * agent key, whose id and name are the key's and `userId` the user the key belongs to.
 */
export type Caller =
  | ({ kind: 'user'; id: string; name: string; role: CallerRole } & CallerIdentity)
  | ({ kind: 'agent'; id: string; name: string; agentId: string; userId?: string } & CallerIdentity)

export interface SkillLogger {
  debug(obj: object | string, msg?: string): void
  info(obj: object | string, msg?: string): void
  warn(obj: object | string, msg?: string): void
  error(obj: object | string, msg?: string): void
}

export interface SkillContext {
  callId: string
  parentCallId: string | null
  caller: Caller
  /** Agent id the call is made for, when any. */
  agent: string | null
  conversationId: string | null
  /** The person an agent run acts for (whose values and policies its calls meet), or null. */
  onBehalfOf: Caller | null
  /** The edge a host-scope call runs on (its id); null on the manager. */
  edgeId: string | null
  signal: AbortSignal
  logger: SkillLogger
  /** The secrets the skill declares, resolved for this caller before it ran (user, then agent, then global). */
  secrets: SkillSecrets
  /** The settings the skill declares, resolved the same way. */
  settings: SkillSettings
  /** Shared memory: JSON values in named pools that other skills and runs read too, optionally expiring. */
  memory: SkillMemory
  /** Leave a note for later calls, stored with this skill, agent and call; agents recall the important ones. */
  learn(learning: LearningInput): Promise<{ id: string }>
  /**
   * Report how far a long call has come; it reaches the caller while the call runs (an MCP
   * client's progress notifications, which also keep its request from timing out).
   */
  progress(update: ProgressUpdate): void
  /**
   * The caller's client: ask the person for input (elicitation), ask their model for a completion
   * (sampling), send them log lines. Each question is recorded on the call. Without a channel
   * (a plain HTTP call) `elicit` and `sample` reject with `unsupported` and `log` does nothing.
   */
  client: CallerClient
  /**
   * Call another skill through the pipeline: it is gated and audited, linked to this call. Pass the
   * callee's definition instead of its key and its input and result are typed.
   */
  invoke<I extends SchemaLike, O extends SchemaLike>(
    skill: SkillDefinition<I, O>,
    input: CallInput<I>,
    options?: NestedCallOptions,
  ): Promise<Envelope<InferOutput<O>>>
  invoke(key: string, input: unknown, options?: NestedCallOptions): Promise<Envelope>
}

/**
 * Whether a skill can run for a caller: `needs_auth` when a secret it needs is missing,
 * `needs_input` when only settings are.
 */
export type ConnectionStateName = 'ready' | 'needs_auth' | 'needs_input'

export interface ConnectionState {
  state: ConnectionStateName
  /** What is missing for this caller, by name (empty lists when ready). */
  missing: { secrets: string[]; settings: string[] }
  /** The OAuth connection the skill waits for, when that is what is missing: its provider and the scopes not yet granted. */
  oauth?: { provider: string; missingScopes: string[]; account: 'person' | 'service' }
}

/**
 * An OAuth 2 connection a skill runs with instead of a static secret: the provider (named in the
 * config's `oauth.providers`, or `mcp:<server>` for an imported server's own authorization server),
 * the scopes it needs (default: the provider's), and whose account: `person` (the caller, or the
 * person an agent acts for; the default) or `service` (one connection an admin makes for everyone).
 * The access token is read as `ctx.secrets.get(provider)` and scrubbed like any secret.
 */
export interface SkillOAuth {
  provider: string
  scopes?: string[]
  account?: 'person' | 'service'
}

/** A skill's declared settings for this call. */
export interface SkillSettings {
  /** The value; throws for a name the skill did not declare. */
  get(name: string): string
}

/** A skill's declared secrets for this call. Their values are scrubbed from everything the call returns or records. */
export interface SkillSecrets extends SkillSettings {
  /**
   * Scrub this text too: a value derived from a secret (a Basic authorization's base64, a signed
   * URL) that a remote service could echo back.
   */
  conceal(derived: string): void
}

/** Which pool of shared memory an operation uses; default `default`. */
export interface MemoryPoolOption {
  pool?: string
}

/** An entry as listed: its key and bookkeeping, without its value. */
export interface MemoryKeyInfo {
  key: string
  bytes: number
  /** ISO time the entry vanishes, or null. */
  expiresAt: string | null
  updatedAt: string
  updatedBy: string
}

/** Shared memory as a skill sees it. Bad keys, pools and values, and a full pool, throw a MemoryError naming what is wrong. */
export interface SkillMemory {
  /** The value, or undefined when there is none (or it expired). */
  get(key: string, options?: MemoryPoolOption): Promise<unknown>
  /** Store a JSON value; with `ttlSeconds` it vanishes after that long. */
  set(
    key: string,
    value: unknown,
    options?: MemoryPoolOption & { ttlSeconds?: number },
  ): Promise<{ key: string; pool: string; bytes: number; expiresAt: string | null }>
  /** Remove an entry; true when there was one. */
  delete(key: string, options?: MemoryPoolOption): Promise<boolean>
  /** Keys starting with `prefix`, in key order (at most `limit`, default 100). */
  list(prefix?: string, options?: MemoryPoolOption & { limit?: number }): Promise<MemoryKeyInfo[]>
}

/** What a skill learned: a `discovery` (a fact about the world) or a `pattern` (a way of doing things that worked). */
export interface LearningInput {
  category: 'discovery' | 'pattern'
  title: string
  content: string
  tags?: string[]
  /** 0–1; default 0.5. It decays with time, and grows when runs that used it succeed. */
  importance?: number
}

export interface NestedCallOptions {
  /** The edge (id or name) a host-scope skill runs on. */
  edgeId?: string
}

/** What a caller passes a skill: its input schema's input side (before defaults and transforms). */
export type CallInput<S> = S extends z.ZodType ? z.input<S> : Record<string, unknown>

/** How far a running call has come: `progress` of `total` (when known), with a word on what it does. */
export interface ProgressUpdate {
  progress: number
  total?: number
  message?: string
}

export interface EnvelopeError {
  code: ErrorCode
  message: string
  details?: Record<string, unknown>
}

export type Envelope<T = unknown> = { ok: true; data: T; callId: string } | { ok: false; error: EnvelopeError; callId: string }

/** Declared relations between skills, by key: discovery offers a found skill's relations too. */
export interface SkillRelations {
  /** Skills this one needs to have run first, or alongside. */
  requires?: string[]
  /** Skills whose results this one makes better. */
  enhances?: string[]
  /** Skills this one is usually composed with. */
  composes?: string[]
  /** Skills this one usually follows. */
  succeeds?: string[]
}

export const RELATION_KINDS = ['requires', 'enhances', 'composes', 'succeeds'] as const

export interface SkillExample {
  title?: string
  input: Record<string, unknown>
  output?: unknown
}

/** The executor: what a call of the skill runs once the pipeline let it through. */
export type SkillRun<I extends SchemaLike, O extends SchemaLike> = (input: InferInput<I>, ctx: SkillContext) => Promise<InferOutput<O>> | InferOutput<O>

/**
 * A skill as code declares it. The AI SDK's and Mastra's names are accepted too: `inputSchema`
 * for `input`, `outputSchema` for `output`, `execute` for `run` (one of each pair, checked when the
 * skill is defined).
 */
export interface SkillDefinition<I extends SchemaLike = SchemaLike, O extends SchemaLike = SchemaLike> {
  /** lower_snake: the LLM tool name, the audit key and the URL segment. */
  key: string
  title?: string
  description: string
  /** Required: `safe` (reads only), `mutating` (changes state) or `dangerous` (destructive). */
  class: SkillClass
  scope?: SkillScope
  category?: string
  tags?: string[]
  /** Agents this skill is bound to, by name or alias. */
  agents?: string[]
  examples?: SkillExample[]
  /** Skills discovery should offer beside this one, by key (see {@link SkillRelations}). */
  related?: SkillRelations
  input?: I
  /** `input` under the AI SDK's name. */
  inputSchema?: I
  output?: O
  /** `output` under the AI SDK's name. */
  outputSchema?: O
  /**
   * The input schema a given caller should see (an LLM's tool schema), e.g. with an enum of the
   * names it may use. Validation still uses `input`; the executor re-checks.
   */
  inputSchemaFor?: (view: { caller: Caller; agent: string | null }) => JsonSchema
  /** Why the executor can't run now (its server is down, say), or null when it can. */
  unavailable?: () => string | null
  /**
   * Secrets the skill needs, by name (e.g. `GITHUB_TOKEN`): resolved for the caller before it runs and
   * read with `ctx.secrets.get`; while one is missing a call answers `needs_auth` and runs nothing.
   */
  secrets?: string[]
  /** Settings (plain values such as an organisation name) it needs, read with `ctx.settings.get`; missing → `needs_input`. */
  settings?: string[]
  /** An OAuth 2 connection it runs with (see SkillOAuth); without one for this caller a call answers `needs_auth` with the link to connect. */
  oauth?: SkillOAuth
  /**
   * Global values the skill's source waits for before it can connect (an MCP server's header
   * secret), or null when it has them: shown as the skill's connection state, and calls refused.
   */
  awaiting?: () => { secrets?: string[]; settings?: string[] } | null
  /** Deadline for one call; default from the config (30 s). */
  timeoutMs?: number
  /** Dynamic gate on top of the class; returns a reason (string) or true to ask a human. */
  needsApproval?: (input: InferInput<I>, ctx: SkillContext) => boolean | string | Promise<boolean | string>
  run?: SkillRun<I, O>
  /** `run` under the AI SDK's name. */
  execute?: SkillRun<I, O>
}
