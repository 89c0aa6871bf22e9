import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js'
import type { CallToolResult, Prompt, Tool } from '@modelcontextprotocol/sdk/types.js'
import type { SkillLogger } from '../../skill/index.js'
import { SkillError } from '../../runtime/index.js'
import { McpConnection } from './mcp-connection.js'
import { mcpProvider, type OAuthMcpServer } from './mcp-oauth-flow.js'
import type { OAuthPort } from './oauth-port.js'
import type { ToolProblem } from './parse-tools.js'
import type { ListedResources, McpServerHandle, McpServerStatus, ToolCall } from './mcp-server-handle.js'
import { ResourceSubscriptions, type SendSubscription } from './resource-subscriptions.js'

/** A session nobody has called through for this long is closed; the next call opens another. */
const IDLE_MS = 10 * 60_000

interface Hooks {
  oauth: OAuthPort
  logger: SkillLogger
  onTools(tools: Tool[], problems: ToolProblem[]): void
  onResources?(listed: ListedResources | null): void
  onPrompts?(prompts: Prompt[] | null, problems: string[]): void
  /** A person's own resource or prompt list changed (their first listing included). */
  onPersonList?(subject: string, kind: 'resources' | 'prompts'): void
  /** Whether the server's tools are known (listed live, or stored from an earlier listing). */
  hasTools(): boolean
  secrets?(names: string[]): Promise<Map<string, string>>
}

interface Session {
  connection: McpConnection
  usedAt: number
  calls: number
}

/** What one person's session listed: theirs alone, never served to anyone else. */
export interface PersonListing {
  /** Undefined until their session lists them; null when the server declares none. */
  resources?: ListedResources | null
  prompts?: Prompt[]
}

/**
 * A server each person connects to with their own account: one upstream session per person, made
 * with their token on their first call and closed when they connect again (a new token, maybe another
 * account), when it idles, or when the server refuses their token. The tools are listed through
 * whichever person's session is open; the list is stored like any server's. Resources and prompts
 * are each person's own: kept per person, and the source hears only whether the server has them.
 */
export class PersonSessions implements McpServerHandle {
  readonly server: OAuthMcpServer
  readonly #hooks: Hooks
  readonly #provider: string
  readonly #sessions = new Map<string, Session>()
  readonly #listings = new Map<string, PersonListing>()
  /** Each person's subscriptions, kept across their sessions: a new session is sent them again. */
  readonly #subscriptions = new Map<string, ResourceSubscriptions>()
  readonly #sweep: NodeJS.Timeout
  #closed = false
  #listing: Promise<void> | null = null

  constructor(server: OAuthMcpServer, hooks: Hooks) {
    this.server = server
    this.#hooks = hooks
    this.#provider = mcpProvider(server)
    this.#sweep = setInterval(() => this.#closeIdle(), IDLE_MS / 4)
    this.#sweep.unref()
  }

  status(): McpServerStatus {
    const open = [...this.#sessions.values()].filter((s) => s.connection.status().state === 'connected')
    const state = this.#closed ? 'closed' : open.length > 0 ? 'connected' : this.#hooks.hasTools() ? 'idle' : 'needs_auth'
    const reasons: Record<typeof state, string | null> = {
      closed: 'skillplane is shutting down',
      connected: null,
      idle: "no person's session is open: each opens with that person's first call",
      needs_auth: `nobody has connected to it yet: its tools are listed once someone connects (provider ${this.#provider})`,
    }
    const connectedAt = open.map((s) => s.connection.status().connectedAt).sort()[0] ?? null
    return { name: this.server.name, transport: 'http', target: this.server.url, state, reason: reasons[state], connectedAt, retryAt: null, stderr: null }
  }

  /** Calls are refused per person (their connection state), never for the whole server. */
  unavailable(): null {
    return null
  }

  missingSecrets(): string[] {
    return []
  }

  secretValues(subject: string | null): string[] {
    return subject === null ? [] : (this.#sessions.get(subject)?.connection.secretValues() ?? [])
  }

  /** List the tools when none are known yet, through a connected person's session. */
  connect(): Promise<void> {
    if (this.#closed || this.#hooks.hasTools()) return Promise.resolve()
    this.#listing ??= this.#listThroughSomeone().finally(() => {
      this.#listing = null
    })
    return this.#listing
  }

  /** An operator's reload: list the tools again through an open session, or a connected person's. */
  async refresh(): Promise<void> {
    const open = [...this.#sessions.values()].find((s) => s.connection.status().state === 'connected')
    if (open) return open.connection.refresh()
    return this.#listThroughSomeone()
  }

  /** Header secrets changed: the open sessions pick them up. */
  async secretsChanged(): Promise<void> {
    await Promise.all([...this.#sessions.values()].map((s) => s.connection.secretsChanged()))
  }

  /** A person connected (again): their old session (another token, maybe another account) is closed; one is opened when the tools are not known yet. */
  connected(subject: string): void {
    if (this.#closed || subject === '') return
    this.#drop(subject)
    // A new session at once for one with subscriptions: they are sent again as it connects, not at their next call.
    if (!this.#hooks.hasTools() || (this.#subscriptions.get(subject)?.size ?? 0) > 0) void this.#session(subject).connection.connect()
  }

  callTool(name: string, args: unknown, call: ToolCall): Promise<CallToolResult> {
    return this.request(
      (client, options) =>
        client.callTool({ name, arguments: args as Record<string, unknown>, _meta: call.meta }, undefined, options) as Promise<CallToolResult>,
      call,
    )
  }

  async request<T>(send: (client: Client, options: RequestOptions) => Promise<T>, call: ToolCall): Promise<T> {
    const { subject } = call
    if (subject === null) {
      throw new SkillError(
        'needs_auth',
        `MCP server "${this.server.name}" acts for the person calling, and this call acts for nobody (an agent's own key): call it as a person, or run the agent on someone's behalf`,
      )
    }
    const session = this.#session(subject)
    session.calls++
    session.usedAt = Date.now()
    try {
      return await session.connection.request(send, call)
    } catch (error) {
      // The server refused the person's token (revoked): their connection is back to needs_auth; say where to connect again.
      if (error instanceof SkillError && error.code === 'needs_auth' && session.connection.status().state === 'needs_auth') {
        const link = this.#hooks.oauth.authorizationUrl(this.#provider, subject, this.server.oauth.scopes ?? [])
        throw new SkillError('needs_auth', `${error.message}; connect again: ${link}`)
      }
      throw error
    } finally {
      session.calls--
      session.usedAt = Date.now()
    }
  }

  /**
   * What the person's own session listed (resources, prompts), opening it first when none is open;
   * nothing is known yet when it could not connect (their call then meets the same needs_auth).
   */
  async listing(subject: string | null): Promise<PersonListing> {
    if (subject === null || this.#closed) return {}
    if (!this.#listings.has(subject)) await this.#session(subject).connection.connect()
    return this.#listings.get(subject) ?? {}
  }

  /**
   * What the person's own session listed, for /mcp's lists: a session is opened only for a person
   * whose account is connected, so listing never makes a doomed attempt (and its warning) per request.
   */
  async listed(subject: string | null): Promise<PersonListing> {
    if (subject === null || this.#closed) return {}
    const known = this.#listings.get(subject)
    if (known) return known
    return this.#hooks.oauth.state(this.#provider, subject, this.server.oauth.scopes ?? []).state === 'ready' ? this.listing(subject) : {}
  }

  /** A resource's updates as the person's own session hears them: never another person's. */
  async subscribe(uri: string, call: Pick<ToolCall, 'subject' | 'signal'>, listener: (uri: string) => void): Promise<() => void> {
    if (call.subject === null)
      throw new SkillError('needs_auth', `MCP server "${this.server.name}" acts for the person calling, and this subscription acts for nobody`)
    const subject = call.subject
    // Sent through whichever session of theirs is current (an unsubscribe with none open has nothing to undo).
    const send: SendSubscription = (u, subscribe) => {
      const session = subscribe ? this.#session(subject) : this.#sessions.get(subject)
      return session ? session.connection.sendSubscription(u, subscribe, call) : Promise.resolve()
    }
    return this.#subscriptionsOf(subject).add(uri, listener, send)
  }

  #subscriptionsOf(subject: string): ResourceSubscriptions {
    let subscriptions = this.#subscriptions.get(subject)
    if (!subscriptions) {
      subscriptions = new ResourceSubscriptions((uri, error) =>
        this.#hooks.logger.warn({ server: this.server.name, uri, err: error }, 'MCP resource subscription failed'),
      )
      this.#subscriptions.set(subject, subscriptions)
    }
    return subscriptions
  }

  async close(): Promise<void> {
    this.#closed = true
    clearInterval(this.#sweep)
    const sessions = [...this.#sessions.values()]
    this.#sessions.clear()
    await Promise.all(sessions.map((s) => s.connection.close()))
  }

  /** The person's session, made anew when there is none or the last one is over (lost, or its token refused). */
  #session(subject: string): Session {
    const current = this.#sessions.get(subject)
    const state = current?.connection.status().state
    if (current && state !== 'down' && state !== 'needs_auth' && state !== 'closed') return current
    if (current) this.#drop(subject)
    const { oauth, logger, onTools, onResources, onPrompts, onPersonList, secrets } = this.#hooks
    const scopes = this.server.oauth.scopes ?? []
    // The person's lists stay theirs; the source learns only whether there are any (and the problems, for operators).
    const own = (): PersonListing => this.#listings.get(subject) ?? this.#listings.set(subject, {}).get(subject)!
    const connection: McpConnection = new McpConnection(this.server, {
      logger,
      onTools,
      onResources: (listed) => {
        if (this.#sessions.get(subject)?.connection !== connection) return
        const changed = JSON.stringify(own().resources) !== JSON.stringify(listed)
        own().resources = listed
        onResources?.(listed && { ...listed, resources: [], templates: [] })
        if (changed) onPersonList?.(subject, 'resources')
      },
      onPrompts: (prompts, problems) => {
        if (this.#sessions.get(subject)?.connection !== connection) return
        const changed = prompts !== null && JSON.stringify(own().prompts) !== JSON.stringify(prompts)
        if (prompts) own().prompts = prompts
        onPrompts?.(prompts && [], problems)
        if (changed) onPersonList?.(subject, 'prompts')
      },
      ...(secrets && { secrets }),
      subscriptions: this.#subscriptionsOf(subject),
      reconnect: false,
      bearer: {
        token: async (signal) => (await oauth.token(this.#provider, subject, scopes, signal)).accessToken,
        refused: (token, reason) => {
          oauth
            .refused(this.#provider, subject, token, reason)
            .catch((error) => logger.warn({ err: error, server: this.server.name }, 'marking the connection needs_auth failed'))
        },
      },
    })
    const session = { connection, usedAt: Date.now(), calls: 0 }
    this.#sessions.set(subject, session)
    return session
  }

  #drop(subject: string): void {
    const session = this.#sessions.get(subject)
    if (!session) return
    this.#sessions.delete(subject)
    this.#listings.delete(subject)
    // Its subscriptions go with it upstream; the next session sends them again.
    this.#subscriptions.get(subject)?.lost()
    void session.connection.close()
  }

  async #listThroughSomeone(): Promise<void> {
    let connections: Awaited<ReturnType<OAuthPort['list']>>
    try {
      connections = await this.#hooks.oauth.list({})
    } catch (error) {
      this.#hooks.logger.warn({ err: error, server: this.server.name }, 'reading who is connected failed; the tools are listed with the next connection')
      return
    }
    const someone = connections.find((c) => c.provider === this.#provider && c.state === 'ready' && c.subject)
    if (someone?.subject) await this.#session(someone.subject).connection.connect()
  }

  #closeIdle(): void {
    const cutoff = Date.now() - IDLE_MS
    for (const [subject, session] of this.#sessions) {
      if (session.calls === 0 && !session.connection.subscribed && session.usedAt < cutoff) {
        this.#drop(subject)
        this.#subscriptions.delete(subject)
      }
    }
  }
}
