import type { CompleteRequest, CompleteResult, Prompt, Resource, ResourceTemplate, Tool } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import type { ResolvedMcpServer } from '../../config/index.js'
import type { Registry } from '../../registry/index.js'
import type { SkillLogger } from '../../skill/index.js'
import type { McpToolRepository } from '../../store/index.js'
import { McpConnection } from './mcp-connection.js'
import type { ListedResources, McpServerHandle, McpServerStatus } from './mcp-server-handle.js'
import { matchesTemplate, mcpResourceSkill } from './mcp-resource-skill.js'
import { reservedScheme, uriTooLong } from './uri-limits.js'
import { McpOAuthFlow, mcpProvider, type OAuthMcpServer } from './mcp-oauth-flow.js'
import { PersonSessions } from './person-sessions.js'
import type { OAuthPort } from './oauth-port.js'
import { mcpToolSkill } from './mcp-tool-skill.js'
import { GET_PROMPT, mcpPromptSkill } from './mcp-prompt-skill.js'
import { SkillError } from '../../runtime/index.js'
import { scrubText, secretForms } from '../../audit/index.js'
import { parseTools, type ToolProblem } from './parse-tools.js'
import { keysOf, toolKey } from './tool-key.js'
import { didYouMean } from '../../text/index.js'
import type { SkillSource, SourceReport } from '../skill-source/index.js'

/** The MCP specification's most values in one completion. */
const MAX_COMPLETIONS = 100
const LooseCompleteResult = z.object({
  completion: z.object({ values: z.array(z.string()), total: z.number().int().optional(), hasMore: z.boolean().optional() }),
})

export interface McpServerReport extends McpServerStatus {
  /** The skills its tools became. */
  skills: string[]
  /** Tools that could not become skills, and why. */
  problems: string[]
}

/** One server's resources as /mcp serves them: URIs another server (earlier in the config) lists are left out. */
export interface McpResourceSet {
  server: string
  /** The skill that reads them, `<server>_read_resource`: whoever may call it may list, read and subscribe. */
  skill: string
  resources: Resource[]
  templates: ResourceTemplate[]
  /** Whether the server takes subscriptions. */
  subscribe: boolean
}

/** A person's own list changed on a per-person server: theirs only, behind `skill` (its read or get_prompt skill). */
export interface McpPersonListChange {
  subject: string
  kind: 'resources' | 'prompts'
  skill: string
}

/** A listener's handle on one resource subscription. */
export interface McpResourceSubscription {
  /** Stop listening; the last listener of a URI unsubscribes upstream. */
  close(): void
}
/** One server's prompts as /mcp lists them: each under its key-like name, through the server's get_prompt skill. */
export interface ImportedPrompts {
  server: string
  /** The skill a prompt is got through (`<server>_get_prompt`): whoever may call it may list and get them. */
  skill: string
  prompts: Array<{ name: string; prompt: Prompt }>
}

/** completion/complete's params as the upstream server takes them (its own prompt name or URI template in `ref`), and its answer. */
export type McpCompletion = CompleteRequest['params']
export type McpCompletionResult = CompleteResult

export interface McpSourceOptions {
  servers: readonly ResolvedMcpServer[]
  registry: Registry
  /** A name another kind of source (instruction skills) holds, or undefined. */
  taken(name: string): string | undefined
  /** Where each server's last tool list is kept (read at start). */
  store(): McpToolRepository
  /** Connect every server at start and wait for the first attempts; otherwise each connects on its first call. */
  connect: boolean
  logger: SkillLogger
  /** After start, each time a server's skills changed (a connection, a list change). */
  onChange(): void
  now(): string
  /** Open global secrets that servers' headers or environments name. */
  secrets?(names: string[]): Promise<Map<string, string>>
  /** People's and the service account's OAuth connections, for servers with `oauth`. */
  oauth: OAuthPort
}

/**
 * The tools of the configured MCP servers, registered as skills. The last tool list each server
 * gave is stored, so its skills stay listed (unavailable, with the reason) while it is down.
 */
export class McpSource implements SkillSource {
  readonly kind = 'mcp'
  readonly #options: McpSourceOptions
  readonly #connections: McpServerHandle[]
  #unsubscribe: () => void = () => {}
  readonly #keys = new Map<string, string[]>()
  readonly #problems = new Map<string, string[]>()
  readonly #signatures = new Map<string, string>()
  /** Each server's last resource listing (kept while it is down), and the read skills registered. */
  readonly #resources = new Map<string, ListedResources>()
  readonly #readers = new Map<string, string>()
  readonly #resourceProblems = new Map<string, string[]>()
  /** Per server, its URIs and templates an earlier server holds. */
  readonly #shadowed = new Map<string, string[]>()
  #resourceSignature = ''
  /** What /mcp serves, worked out again whenever a list or a read skill changes (read on every resource request). */
  #served: { sets: McpResourceSet[]; byUri: Map<string, McpResourceSet> } = { sets: [], byUri: new Map() }
  /** Per server that declares prompts: its last prompt list, the names they are listed under, and its get_prompt skill. */
  readonly #prompts = new Map<
    string,
    { prompts: Prompt[]; listed: ImportedPrompts['prompts']; skill: string | null; listProblems: string[]; problems: string[]; signature: string }
  >()
  #started = false
  readonly #personListeners = new Set<(change: McpPersonListChange) => void>()
  /** After start, each time the resources /mcp serves changed without a skill changing (a server's resource list). */
  onResourcesChanged: () => void = () => {}

  constructor(options: McpSourceOptions) {
    this.#options = options
    this.#connections = options.servers.map((server) => this.#handle(server))
  }

  /** One connection, or for a per-person OAuth server one session per person; an OAuth server's flow is registered. */
  #handle(server: McpSourceOptions['servers'][number]): McpServerHandle {
    const { logger, secrets, oauth } = this.#options
    const onTools = (handle: McpServerHandle) => (tools: Tool[], problems: ToolProblem[]) => this.#apply(handle, tools, problems, true)
    const onResources = (handle: McpServerHandle) => (listed: ListedResources | null) => this.#applyResources(handle, listed)
    const onPrompts = (handle: () => McpServerHandle) => (prompts: Prompt[] | null, problems: string[]) => this.#applyPrompts(handle(), prompts, problems)
    if (server.transport !== 'http' || !server.oauth) {
      const connection: McpConnection = new McpConnection(server, {
        logger,
        onTools: (t, p) => onTools(connection)(t, p),
        onResources: (l) => onResources(connection)(l),
        onPrompts: onPrompts(() => connection),
        ...(secrets && { secrets }),
      })
      return connection
    }
    const secured = server as OAuthMcpServer
    const provider = mcpProvider(secured)
    oauth.register(new McpOAuthFlow(secured, { clients: oauth, secrets: secrets ?? (async () => new Map()) }))
    if (secured.oauth.account === 'person') {
      const sessions: PersonSessions = new PersonSessions(secured, {
        oauth,
        logger,
        onTools: (t, p) => onTools(sessions)(t, p),
        onResources: (l) => onResources(sessions)(l),
        onPrompts: onPrompts(() => sessions),
        onPersonList: (subject, kind) => {
          const skill = kind === 'resources' ? this.#readers.get(server.name) : this.#prompts.get(server.name)?.skill
          if (skill) for (const listener of this.#personListeners) listener({ subject, kind, skill })
        },
        hasTools: () => this.#signatures.has(server.name),
        ...(secrets && { secrets }),
      })
      return sessions
    }
    const scopes = secured.oauth.scopes ?? []
    const connection: McpConnection = new McpConnection(server, {
      logger,
      onTools: (t, p) => onTools(connection)(t, p),
      onResources: (l) => onResources(connection)(l),
      onPrompts: onPrompts(() => connection),
      ...(secrets && { secrets }),
      bearer: {
        token: async (signal) => (await oauth.token(provider, '', scopes, signal)).accessToken,
        refused: (token, reason) => {
          oauth
            .refused(provider, '', token, reason)
            .catch((error) => logger.warn({ err: error, server: server.name }, 'marking the connection needs_auth failed'))
        },
      },
    })
    return connection
  }

  /**
   * Register the stored tool lists, then (when `connect`) connect every server and wait for the
   * first attempts; otherwise each server connects on its first call.
   */
  async start(): Promise<void> {
    // Connections made from now on (the ones present at start are what each server starts with).
    const byProvider = new Map(this.#connections.filter((c) => c.server.transport === 'http' && c.server.oauth).map((c) => [mcpProvider(c.server), c]))
    if (byProvider.size > 0) {
      // Someone connected: a person's server renews their session; a service server connects (again) with the new token.
      this.#unsubscribe = this.#options.oauth.onConnected((provider, subject) => {
        const handle = byProvider.get(provider)
        if (handle instanceof PersonSessions) handle.connected(subject)
        else if (handle instanceof McpConnection && subject === '') void handle.reconnected()
      })
    }
    let stored = new Map<string, unknown>()
    try {
      stored = await this.#options.store().all()
    } catch (error) {
      this.#options.logger.warn({ err: error }, 'stored MCP tool lists could not be read; servers are listed once connected')
    }
    for (const connection of this.#connections) {
      const list = stored.get(connection.server.name)
      if (list === undefined) continue
      // The stored list is checked like a live one: a damaged row costs its tools, never the start.
      const { tools, problems } = Array.isArray(list)
        ? await parseTools(list)
        : { tools: [], problems: ['the stored tool list is damaged; waiting for the server'] }
      this.#apply(connection, tools, problems, false)
    }
    if (this.#options.connect) await Promise.all(this.#connections.map((c) => c.connect()))
    this.#started = true
  }

  status(): McpServerReport[] {
    return this.#connections.map((c) => ({
      ...c.status(),
      skills: [
        ...(this.#keys.get(c.server.name) ?? []),
        ...this.#promptSkill(c.server.name),
        ...(this.#readers.has(c.server.name) ? [this.#readers.get(c.server.name)!] : []),
      ].sort(),
      problems: [
        ...(this.#problems.get(c.server.name) ?? []),
        ...(this.#prompts.get(c.server.name)?.problems ?? []),
        ...(this.#resourceProblems.get(c.server.name) ?? []),
        ...(this.#shadowed.get(c.server.name) ?? []),
      ],
    }))
  }

  /**
   * The resources of every server with a read skill, in config order. A URI (or a template) two
   * servers list belongs to the first; the others' are left out, reported in their problems.
   */
  resources(): McpResourceSet[] {
    return this.#served.sets
  }

  /** What /mcp serves, and per server what an earlier server's resources and templates hold instead (its problems). */
  #serve(): { sets: McpResourceSet[]; left: Map<string, string[]> } {
    const sets: McpResourceSet[] = []
    const left = new Map<string, string[]>()
    const uris = new Map<string, string>()
    const templates = new Map<string, string>()
    // Earlier templates that are a literal prefix and one {+x}: they match every URI that starts with the prefix.
    const covering: Array<{ prefix: string; template: string; server: string }> = []
    for (const connection of this.#connections) {
      const name = connection.server.name
      const skill = this.#readers.get(name)
      const listed = this.#resources.get(name)
      // A per-person server's resources are each person's own: listed to that person only (personResources), never to all.
      if (!skill || !listed || connection instanceof PersonSessions) continue
      const problems: string[] = []
      const also = (what: string, holder: string) =>
        problems.push(`${what} is also listed by MCP server "${holder}", earlier in the config: that one is served; skipped`)
      const own = listed.resources.filter((r) => {
        const holder = uris.get(r.uri)
        if (holder !== undefined) also(`resource "${r.uri}"`, holder)
        return holder === undefined
      })
      const ownTemplates = listed.templates.filter((t) => {
        const holder = templates.get(t.uriTemplate)
        if (holder !== undefined) {
          also(`resource template "${t.uriTemplate}"`, holder)
          return false
        }
        const prefix = literalPrefix(t.uriTemplate)
        // A template without expressions is one URI: covered only when longer than the prefix.
        const cover = covering.find((c) => prefix.startsWith(c.prefix) && (prefix.length > c.prefix.length || t.uriTemplate.includes('{')))
        if (cover) {
          problems.push(
            `resource template "${t.uriTemplate}": every URI it matches is matched by "${cover.template}" of MCP server "${cover.server}", earlier in the config, and read there; skipped`,
          )
        }
        return !cover
      })
      for (const r of own) uris.set(r.uri, name)
      for (const t of ownTemplates) {
        templates.set(t.uriTemplate, name)
        const prefix = COVERING.exec(t.uriTemplate)?.[1]
        if (prefix !== undefined) covering.push({ prefix, template: t.uriTemplate, server: name })
      }
      sets.push({ server: name, skill, resources: own, templates: ownTemplates, subscribe: listed.subscribe })
      left.set(name, problems)
    }
    return { sets, left }
  }

  /**
   * The server whose resources /mcp serves `uri` from: the first that lists it, else the first with
   * a template that matches it; only servers whose read skill `usable` allows are considered. A skill: URI or one too long to match is no imported server's.
   */
  resourceOwner(uri: string, usable: (skill: string) => boolean, personal: McpResourceSet[] = []): McpResourceSet | null {
    if (reservedScheme(uri) || uriTooLong(uri)) return null
    const { sets, byUri } = this.#served
    const listed = byUri.get(uri)
    // A server the caller may not use decides nothing for it (nor shows, by hiding its own, what that server lists).
    if (listed && usable(listed.skill)) return listed
    const matches = (s: McpResourceSet) => usable(s.skill) && s.templates.some((t) => matchesTemplate(t.uriTemplate, uri))
    // A person's own (from personResources) after every shared server's.
    return sets.find(matches) ?? personal.find((s) => usable(s.skill) && s.resources.some((r) => r.uri === uri)) ?? personal.find(matches) ?? null
  }

  /**
   * The per-person servers' resources and templates as `subject`'s own session lists them (opened
   * when none is open and their account is connected), for the servers whose read skill `usable`
   * allows; none for nobody. Left out, as resourceOwner routes them elsewhere: a URI a shared server
   * (`usable`, as all here) lists or one of its templates matches, a template equal to or covered by a shared one,
   * and what an earlier per-person server already lists.
   */
  async personResources(subject: string | null, usable: (skill: string) => boolean): Promise<McpResourceSet[]> {
    const lists = await Promise.all(
      this.#personal(subject, (name) => this.#readers.get(name), usable).map(async ({ connection, skill }) => ({
        connection,
        skill,
        listed: (await connection.listed(subject)).resources,
      })),
    )
    const shared = this.#served.sets.filter((set) => usable(set.skill)).flatMap((set) => set.templates.map((t) => t.uriTemplate))
    const covering = shared.flatMap((template) => COVERING.exec(template)?.[1] ?? [])
    const listedShared = (uri: string) => {
      const set = this.#served.byUri.get(uri)
      return set !== undefined && usable(set.skill)
    }
    const uris = new Set<string>()
    const templates = new Set(shared)
    const sets: McpResourceSet[] = []
    for (const { connection, skill, listed } of lists) {
      if (!listed) continue
      const resources = listed.resources.filter((r) => !listedShared(r.uri) && !uris.has(r.uri) && !shared.some((template) => matchesTemplate(template, r.uri)))
      const own = listed.templates.filter((t) => {
        const prefix = literalPrefix(t.uriTemplate)
        // As #serve: a template without expressions is one URI, covered only when longer than the prefix.
        return !templates.has(t.uriTemplate) && !covering.some((c) => prefix.startsWith(c) && (prefix.length > c.length || t.uriTemplate.includes('{')))
      })
      for (const r of resources) uris.add(r.uri)
      for (const t of own) templates.add(t.uriTemplate)
      sets.push({ server: connection.server.name, skill, resources, templates: own, subscribe: listed.subscribe })
    }
    return sets
  }

  /**
   * The per-person servers' prompts as `subject`'s own session lists them, named as a shared
   * server's are, for the servers whose get_prompt skill `usable` allows; none for nobody.
   */
  async personPrompts(subject: string | null, usable: (skill: string) => boolean): Promise<ImportedPrompts[]> {
    const sets = await Promise.all(
      this.#personal(subject, (name) => this.#prompts.get(name)?.skill ?? undefined, usable).map(async ({ connection, skill }) => {
        const prompts = (await connection.listed(subject)).prompts ?? []
        return {
          server: connection.server.name,
          skill,
          prompts: keysOf(connection.server.name, prompts, 'prompt').keyed.map(({ key, item }) => ({ name: key, prompt: item })),
        }
      }),
    )
    return sets.filter((set) => set.prompts.length > 0)
  }

  /** The per-person servers' read skills (`resources`) or get_prompt skills (`prompts`): who may call one has that person's own list. */
  personSkills(kind: 'resources' | 'prompts'): string[] {
    return this.#personServers((name) => (kind === 'resources' ? this.#readers.get(name) : (this.#prompts.get(name)?.skill ?? undefined))).map(
      ({ skill }) => skill,
    )
  }

  /** Hear each change of a person's own resource or prompt list on a per-person server; returns the way to stop. */
  onPersonListChanged(listener: (change: McpPersonListChange) => void): () => void {
    this.#personListeners.add(listener)
    return () => void this.#personListeners.delete(listener)
  }

  /** The per-person servers with the skill `skillOf` names that `usable` allows, for a person (none for nobody). */
  #personal(
    subject: string | null,
    skillOf: (server: string) => string | undefined,
    usable: (skill: string) => boolean,
  ): Array<{ connection: PersonSessions; skill: string }> {
    return subject === null ? [] : this.#personServers(skillOf).filter(({ skill }) => usable(skill))
  }

  /** Every per-person server with the skill `skillOf` names, whoever asks. */
  #personServers(skillOf: (server: string) => string | undefined): Array<{ connection: PersonSessions; skill: string }> {
    return this.#connections.flatMap((connection) => {
      const skill = skillOf(connection.server.name)
      return connection instanceof PersonSessions && skill !== undefined ? [{ connection, skill }] : []
    })
  }

  /**
   * Hear a resource's updates from `server` (through the person's own session, for a per-person
   * server): the first listener of a URI subscribes upstream, and resolves once the server took it.
   */
  async subscribe(
    server: string,
    uri: string,
    options: { subject: string | null; signal: AbortSignal },
    listener: (uri: string) => void,
  ): Promise<McpResourceSubscription> {
    const connection = this.#connections.find((c) => c.server.name === server)
    if (!connection) throw new Error(`no MCP server "${server}"`)
    const stop = await connection.subscribe(uri, options, listener)
    return { close: stop }
  }

  /** The prompts of every server that has a get_prompt skill, in config order, as /mcp lists them. */
  prompts(): ImportedPrompts[] {
    return this.#connections.flatMap((connection) => {
      const { name } = connection.server
      const known = this.#prompts.get(name)
      // A per-person server's prompts are each person's own: listed to that person only (personPrompts), never to all.
      return known?.skill && !(connection instanceof PersonSessions) ? [{ server: name, skill: known.skill, prompts: known.listed }] : []
    })
  }

  /**
   * Ask a server for completions (completion/complete with its own prompt name or URI template), for
   * the person `subject` on a per-person server. Whether the caller may ask is the caller's gate to keep.
   */
  async complete(server: string, params: McpCompletion, call: { subject: string | null; signal: AbortSignal; caller?: string }): Promise<McpCompletionResult> {
    const connection = this.#connections.find((c) => c.server.name === server)
    if (!connection) throw new SkillError('not_found', `no MCP server "${server}"`)
    // A loose schema: the SDK's own refuses more than 100 values, which are cut here instead. Not a call: the connect deadline.
    const answer = await connection.request(
      (client, options) =>
        client.request({ method: 'completion/complete', params }, LooseCompleteResult, { ...options, timeout: connection.server.connectTimeoutMs }),
      { ...call, meta: {} },
    )
    const secrets = new Set(connection.secretValues(call.subject).flatMap(secretForms))
    const { values, total, hasMore } = answer.completion
    const kept = values.slice(0, MAX_COMPLETIONS).map((value) => (secrets.size > 0 ? scrubText(value, secrets) : value))
    if (values.length > MAX_COMPLETIONS) return { completion: { values: kept, total: Math.max(total ?? 0, values.length), hasMore: true } }
    return { completion: { values: kept, ...(total !== undefined && { total }), ...(hasMore !== undefined && { hasMore }) } }
  }

  /**
   * The skill whose callers may ask the server for completions: for a prompt argument its
   * get_prompt skill, for a resource template variable its read_resource skill; null for none.
   */
  gateSkill(server: string, ref: McpCompletion['ref']['type']): string | null {
    if (ref === 'ref/prompt') return this.#prompts.get(server)?.skill ?? null
    return this.#readers.get(server) ?? null
  }

  /** Connect the servers not connected yet (a one-shot command that needs their tools after all). */
  async connectIdle(): Promise<void> {
    await Promise.all(this.#connections.filter((c) => c.status().state === 'idle').map((c) => c.connect()))
  }

  /** Secrets changed: servers waiting for them connect, and servers whose values changed reconnect. */
  async secretsChanged(): Promise<void> {
    await Promise.all(this.#connections.map((c) => c.secretsChanged()))
  }

  /** Reconnect servers that are down and list the tools of those that are up. */
  async reload(): Promise<void> {
    await Promise.all(this.#connections.map((c) => c.refresh()))
  }

  report(): SourceReport {
    const servers = this.status()
    return {
      skills: servers.flatMap((s) => s.skills).sort(),
      entries: servers.map(({ name, state, reason, skills, problems, ...details }) => ({ name, state, reason, skills, problems, details })),
      findings: [],
    }
  }

  async close(): Promise<void> {
    this.#unsubscribe()
    await Promise.all(this.#connections.map((c) => c.close()))
  }

  #promptSkill(server: string): string[] {
    const skill = this.#prompts.get(server)?.skill
    return skill ? [skill] : []
  }

  /**
   * The server's prompts changed (null: listing them failed, the last list stays): the names they
   * are listed under are worked out (names that fold alike hashed, as tools' keys are) and the
   * get_prompt skill is registered anew, since its description names them.
   */
  #applyPrompts(connection: McpServerHandle, listed: Prompt[] | null, listProblems: string[]): void {
    const { server } = connection
    const before = this.#prompts.get(server.name)
    const prompts = listed ?? before?.prompts ?? []
    const signature = JSON.stringify([prompts, listProblems])
    if (signature === before?.signature) return
    const { keyed, problems: twice } = keysOf(server.name, prompts, 'prompt')
    const problems = [...listProblems, ...twice]
    const names: ImportedPrompts['prompts'] = keyed.map(({ key, item }) => ({ name: key, prompt: item }))
    for (const problem of problems) this.#options.logger.error({ server: server.name }, `MCP import: ${problem}`)
    this.#unregisterPromptSkill(server.name)
    this.#prompts.set(server.name, { prompts, listed: names, skill: null, listProblems: problems, problems, signature })
    this.#registerPromptSkill(connection)
    if (this.#started) this.#options.onChange()
  }

  /** The server's get_prompt skill, when it has prompts and no other skill holds the key (a tool named get_prompt keeps it). */
  #registerPromptSkill(connection: McpServerHandle): void {
    const { registry, taken } = this.#options
    const { server } = connection
    const known = this.#prompts.get(server.name)
    if (!known) return
    known.skill = null
    known.problems = [...known.listProblems]
    const personal = connection instanceof PersonSessions
    if (known.listed.length === 0 && !personal) return
    const key = toolKey(server.name, GET_PROMPT)
    const holder = registry.get(key)
    const other = holder ? `${holder.source} skill "${holder.key}" (${holder.origin})` : taken(key)
    if (other) {
      known.problems.push(`prompts: the key "${key}" of their skill is taken by ${other}; the prompts are not served`)
      return
    }
    const prompts = known.listed.map((p) => p.prompt)
    registry.register(
      personal
        ? mcpPromptSkill(server, key, connection, null, async (subject) => (await connection.listing(subject)).prompts ?? [])
        : mcpPromptSkill(server, key, connection, prompts, async () => prompts),
      { source: 'mcp', origin: `MCP server "${server.name}", prompts` },
    )
    known.skill = key
  }

  #unregisterPromptSkill(server: string): void {
    const known = this.#prompts.get(server)
    if (known?.skill) this.#options.registry.unregister(known.skill)
  }

  /** Replace the server's skills with its current tools; names held elsewhere are reported, never taken. */
  #apply(connection: McpServerHandle, tools: Tool[], listProblems: ToolProblem[], live: boolean): void {
    const { registry, taken, logger } = this.#options
    const { server } = connection
    const signature = JSON.stringify([tools, listProblems])
    // A reconnection that lists the same tools changes nothing: no re-registration, store or sync.
    if (signature === this.#signatures.get(server.name)) return
    this.#signatures.set(server.name, signature)
    for (const key of this.#keys.get(server.name) ?? []) registry.unregister(key)
    // A tool keeps its key: the get_prompt and read skills (registered again below) give way to tools of those names.
    this.#unregisterPromptSkill(server.name)
    this.#unregisterReader(server.name)
    const keys: string[] = []
    const { keyed, problems: twice } = keysOf(server.name, tools, 'tool')
    const problems: string[] = [...listProblems, ...twice]
    for (const { key, item: tool } of keyed) {
      const holder = registry.get(key)
      const other = holder ? `${holder.source} skill "${holder.key}" (${holder.origin})` : taken(key)
      if (other) {
        problems.push(`tool "${tool.name}": its key "${key}" is taken by ${other}; skipped`)
        continue
      }
      try {
        registry.register(mcpToolSkill(server, tool, key, connection), { source: 'mcp', origin: `MCP server "${server.name}", tool "${tool.name}"` })
        keys.push(key)
      } catch (error) {
        problems.push(`tool "${tool.name}": ${(error as Error).message}; skipped`)
      }
    }
    const listed = new Set(tools.map((t) => t.name))
    for (const name of Object.keys(server.tools)) {
      if (!listed.has(name)) problems.push(`config tools.${name}: the server has no tool "${name}"${didYouMean(name, listed)}`)
    }
    for (const problem of problems) logger.error({ server: server.name }, `MCP import: ${problem}`)
    this.#keys.set(server.name, keys.sort())
    this.#problems.set(server.name, problems)
    this.#registerPromptSkill(connection)
    this.#registerReader(connection)
    this.#noteResources()
    if (live) {
      this.#options
        .store()
        .save(server.name, tools, this.#options.now())
        .catch((error) => logger.warn({ err: error, server: server.name }, 'storing the MCP tool list failed'))
    }
    if (this.#started) this.#options.onChange()
  }

  /** A server listed its resources (null: it declares none): its read skill follows, and /mcp hears of a changed list. */
  #applyResources(connection: McpServerHandle, listed: ListedResources | null): void {
    const { server } = connection
    const had = this.#readers.has(server.name)
    if (listed) this.#resources.set(server.name, listed)
    else this.#resources.delete(server.name)
    for (const problem of listed?.problems ?? []) this.#options.logger.error({ server: server.name }, `MCP import: ${problem}`)
    this.#registerReader(connection)
    this.#noteResources()
    if (this.#started && had !== this.#readers.has(server.name)) this.#options.onChange()
  }

  #registerReader(connection: McpServerHandle): void {
    const { registry, taken } = this.#options
    const { server } = connection
    this.#unregisterReader(server.name)
    const listed = this.#resources.get(server.name)
    if (!listed) {
      this.#resourceProblems.delete(server.name)
      return
    }
    const problems = [...listed.problems]
    const key = toolKey(server.name, 'read_resource')
    const holder = registry.get(key)
    const other = holder ? `${holder.source} skill "${holder.key}" (${holder.origin})` : taken(key)
    if (other) problems.push(`resources: the key "${key}" of their read skill is taken by ${other}; resources are not served`)
    else {
      registry.register(
        mcpResourceSkill(
          server,
          key,
          connection,
          connection instanceof PersonSessions
            ? async (subject) => (await connection.listing(subject)).resources
            : async () => this.#resources.get(server.name) ?? null,
        ),
        {
          source: 'mcp',
          origin: `MCP server "${server.name}", resources`,
        },
      )
      this.#readers.set(server.name, key)
    }
    this.#resourceProblems.set(server.name, problems)
  }

  #unregisterReader(name: string): void {
    const key = this.#readers.get(name)
    if (key === undefined) return
    this.#options.registry.unregister(key)
    this.#readers.delete(name)
  }

  /** Report URIs an earlier server holds, and tell /mcp when what it serves changed. */
  #noteResources(): void {
    const { sets: served, left: shadowed } = this.#serve()
    this.#served = { sets: served, byUri: new Map(served.flatMap((set) => set.resources.map((r) => [r.uri, set] as const))) }
    for (const set of served) {
      const left = shadowed.get(set.server) ?? []
      const before = this.#shadowed.get(set.server) ?? []
      for (const problem of left) if (!before.includes(problem)) this.#options.logger.error({ server: set.server }, `MCP import: ${problem}`)
      this.#shadowed.set(set.server, left)
    }
    for (const name of this.#shadowed.keys()) if (!served.some((s) => s.server === name)) this.#shadowed.delete(name)
    const signature = JSON.stringify(served)
    if (signature === this.#resourceSignature) return
    this.#resourceSignature = signature
    if (this.#started) this.onResourcesChanged()
  }
}

/** A template of a literal prefix and one `{+x}` at its end (the SDK matches `{+x}` as `.+`): it matches every longer URI with that prefix. */
const COVERING = /^([^{}]*)\{\+[A-Za-z0-9_.%]+\}$/

/** The literal text before a template's first expression: every URI it matches starts with it. */
function literalPrefix(template: string): string {
  const at = template.indexOf('{')
  return at < 0 ? template : template.slice(0, at)
}
