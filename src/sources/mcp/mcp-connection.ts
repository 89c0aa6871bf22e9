import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult, Prompt, Tool } from '@modelcontextprotocol/sdk/types.js'
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { z } from 'zod'
import type { ResolvedMcpServer } from '../../config/index.js'
import { type SkillLogger, MAX_TIMEOUT_MS } from '../../skill/index.js'
import { SkillError } from '../../runtime/index.js'
import { scrubText, secretForms } from '../../audit/index.js'
import { VERSION } from '../../version.js'
import { parseTools, type ToolProblem } from './parse-tools.js'
import { listAllPrompts } from './list-prompts.js'
import { listPages } from './list-pages.js'
import { deliverProgressFirst } from './progress-first.js'
import { loadedMcpSdk, loadMcpSdk, type McpSdk } from './mcp-sdk.js'
import type { ListedResources, McpServerHandle, McpServerState, McpServerStatus, ToolCall } from './mcp-server-handle.js'
import { listAllResources } from './list-resources.js'
import { scrubListing } from './scrub-listing.js'
import { ResourceSubscriptions, type SendSubscription } from './resource-subscriptions.js'
import { CallChannels } from './call-channels.js'

interface Hooks {
  /** The server's current tool list, after each connection and each list change. */
  onTools(tools: Tool[], problems: ToolProblem[]): void
  /** The server's resources and templates (null: it declares none), after each connection and each list change. */
  onResources?(listed: ListedResources | null): void
  /** A server that declares prompts: its prompt list after each connection and list change (null: the listing failed, keep the last). */
  onPrompts?(prompts: Prompt[] | null, problems: string[]): void
  logger: SkillLogger
  /** Open the global secrets the server's headers or environment name; without it none can be. */
  secrets?(names: string[]): Promise<Map<string, string>>
  /**
   * An OAuth server's connection: the access token each request carries (the connections service
   * refreshes it), and what the server refusing it (401) means: that connection needs connecting again.
   */
  bearer?: { token(signal?: AbortSignal): Promise<string>; refused(token: string, reason: string): void }
  /** False for a person's session: one lost is dropped and made anew by the next call, not retried. */
  reconnect?: boolean
  /** The subscriptions to hold (a person's, kept across their sessions); by default the connection's own. */
  subscriptions?: ResourceSubscriptions
}

type Configured = string | { secret: string; prefix?: string }

const FIRST_RETRY_MS = 250
const MAX_RETRY_MS = 30_000
// A connection that lasted this long was healthy: the next outage starts the backoff afresh.
const STABLE_MS = 30_000
const PING_EVERY_MS = 10_000
const PINGS_MISSED = 2
const STDERR_TAIL = 4096
const MAX_MESSAGE = 500
const MAX_TOOLS = 10_000
// The tokens a session has sent lately (a refresh replaces one): scrubbed from what the server answers.
const TOKENS_KEPT = 3
// Asked of a server that logs: everything, since each caller's channel keeps only what that caller's
// level lets through, and one connection serves callers with different levels.
const UPSTREAM_LOG_LEVEL = 'debug'

/**
 * One configured MCP server: connects with the official SDK client, lists its tools (all pages),
 * follows list changes, notices a lost connection (close, failed call, failed pings) and
 * reconnects with exponential backoff until closed.
 */
export class McpConnection implements McpServerHandle {
  readonly server: ResolvedMcpServer
  readonly #hooks: Hooks
  #client: Client | null = null
  /** The client of the attempt in progress, so close() can stop it. */
  #pending: Client | null = null
  #generation = 0
  #state: McpServerState = 'idle'
  #reason: string | null = 'not connected yet'
  #connectedAt: number | null = null
  #retryAt: number | null = null
  #failures = 0
  #missedPings = 0
  #retryTimer: NodeJS.Timeout | undefined
  #pingTimer: NodeJS.Timeout | undefined
  #stderr = { text: '' }
  #lastExitStderr: string | null = null
  #connecting: Promise<void> | null = null
  #listing = 0
  #promptListing = 0
  /** Secrets named in the config and not set, as of the last attempt. */
  #missing: string[] = []
  /** The values of the named secrets the current connection was made with. */
  #opened = new Map<string, string>()
  /** The access tokens its requests carried lately (an OAuth server). */
  #tokens: string[] = []
  /** The WWW-Authenticate of the server's last 401. */
  #challenge: string | null = null
  #resourceListing = 0
  #lastResources: ListedResources | null = null
  readonly #subscriptions: ResourceSubscriptions
  /** Hands what the server asks or logs during a call to that call's caller. */
  readonly #channels: CallChannels

  constructor(server: ResolvedMcpServer, hooks: Hooks) {
    this.server = server
    this.#hooks = hooks
    this.#channels = new CallChannels({
      server: server.name,
      logger: hooks.logger,
      clean: (text) => this.#clean(text),
      timeoutMs: server.timeoutMs,
    })
    this.#subscriptions =
      hooks.subscriptions ??
      new ResourceSubscriptions((uri, error) => hooks.logger.warn({ server: server.name, uri, err: error }, 'MCP resource subscription failed'))
  }

  /** Whether sessions listen to its resources (a person's session with subscriptions is in use). */
  get subscribed(): boolean {
    return this.#subscriptions.size > 0
  }

  /** Why a call can't go to this server now, or null when it can. */
  unavailable(): string | null {
    if (this.#state === 'connected' || this.#state === 'idle' || this.#state === 'needs_auth') return null
    return `MCP server "${this.server.name}" is ${this.#state === 'connecting' ? 'connecting' : 'not connected'}: ${this.#reason}`
  }

  status(): McpServerStatus {
    const { server } = this
    return {
      name: server.name,
      transport: server.transport,
      target: scrubCredentials(server.transport === 'stdio' ? [server.command, ...server.args].join(' ') : server.url),
      state: this.#state,
      reason: this.#state === 'connected' ? null : this.#reason,
      connectedAt: this.#state === 'connected' && this.#connectedAt ? new Date(this.#connectedAt).toISOString() : null,
      retryAt: this.#state === 'down' && this.#retryAt ? new Date(this.#retryAt).toISOString() : null,
      stderr: this.#clean(this.#lastExitStderr ?? this.#stderr.text.trim()) || null,
    }
  }

  /** The secrets the server waits for (named in its config, not set), as of its last attempt. */
  missingSecrets(): string[] {
    return this.#state === 'needs_auth' ? this.#missing : []
  }

  /** The secret values and tokens its connection was made with: a tool result echoing one is scrubbed. */
  secretValues(): string[] {
    return [...this.#opened.values(), ...this.#tokens]
  }

  // A server's error text (an HTTP 401 body, its stderr) may quote the credential it was sent; any viewer sees the reason.
  #describe(error: unknown): string {
    return describe(error, (text) => this.#clean(text))
  }

  #clean(text: string): string {
    const secrets = this.secretValues()
    if (secrets.length === 0) return text
    const values = new Set<string>()
    for (const value of secrets) for (const form of secretForms(value)) values.add(form)
    return scrubText(text, values)
  }

  #cleanListing<T extends Parameters<typeof scrubListing>[0][number]>(entries: T[]): T[] {
    return this.secretValues().length === 0 ? entries : scrubListing(entries, (text) => this.#clean(text))
  }

  /** Connect now unless connected (a first attempt, or an operator's retry); resolves when settled. */
  connect(): Promise<void> {
    if (this.#state === 'closed' || this.#state === 'connected') return Promise.resolve()
    clearTimeout(this.#retryTimer)
    this.#connecting ??= this.#attempt().finally(() => {
      this.#connecting = null
    })
    return this.#connecting
  }

  /**
   * Secrets changed somewhere: a server waiting for them tries again, and one whose connection
   * was made with a value that is now rotated or deleted reconnects with what is set now.
   */
  async secretsChanged(): Promise<void> {
    const names = this.#secretNames()
    if (names.length === 0 || this.#state === 'closed' || this.#state === 'idle' || this.#state === 'connecting') return
    if (this.#state === 'needs_auth') return this.connect()
    const current = this.#hooks.secrets ? await this.#hooks.secrets(names) : new Map<string, string>()
    if (names.every((name) => current.get(name) === this.#opened.get(name))) return
    if (this.#state === 'connected') this.#lost(this.#generation, 'its secrets changed; reconnecting with the values set now', { retryNow: false })
    await this.connect()
  }

  /**
   * Its OAuth account was connected (again, maybe as another account): a new session with the new
   * token, since the server may tie a session to whoever opened it.
   */
  async reconnected(): Promise<void> {
    if (this.#state === 'closed' || this.#state === 'idle') return
    if (this.#state === 'connected') this.#lost(this.#generation, 'its account was connected again; reconnecting with the new token', { retryNow: false })
    await this.connect()
  }

  /** List the tools, resources and prompts again (an operator's reload), reconnecting when down. */
  async refresh(): Promise<void> {
    const client = this.#client
    if (this.#state !== 'connected' || !client) return this.connect()
    await this.#list(client, this.#generation)
    await this.#listResources(client, this.#generation)
    await this.#listPrompts(this.#generation)
  }

  /**
   * The pipeline's deadline aborts `signal`; the SDK's own 60 s request timeout must not cut in
   * first. The server's progress notifications go to `onProgress` (asking for them sends a token).
   */
  callTool(name: string, args: unknown, call: Omit<ToolCall, 'subject'>): Promise<CallToolResult> {
    return this.request(
      (client, options) =>
        client.callTool({ name, arguments: args as Record<string, unknown>, _meta: call.meta }, undefined, options) as Promise<CallToolResult>,
      call,
    )
  }

  /** Listen to a resource's updates; the first listener subscribes through a request like a call's. */
  subscribe(uri: string, call: Pick<ToolCall, 'signal'>, listener: (uri: string) => void): Promise<() => void> {
    return this.#subscriptions.add(uri, listener, (u, subscribe) => this.sendSubscription(u, subscribe, call))
  }

  /** resources/subscribe through a request like a call's (it waits for a connection); resources/unsubscribe to the open session only. */
  sendSubscription(uri: string, subscribe: boolean, call: Pick<ToolCall, 'signal'>): Promise<void> {
    return subscribe
      ? this.request((client, options) => client.subscribeResource({ uri }, { ...options, timeout: this.server.connectTimeoutMs }).then(() => {}), {
          ...call,
          meta: {},
        })
      : this.#sendSubscription(uri, false)
  }

  /** Straight to the open session; with none, there is nothing to undo (a new session holds no subscription). */
  #sendSubscription: SendSubscription = async (uri, subscribe) => {
    const client = this.#client
    if (!client || this.#state !== 'connected') {
      if (subscribe) throw new Error(`MCP server "${this.server.name}" is not connected`)
      return
    }
    const options = { timeout: this.server.connectTimeoutMs }
    await (subscribe ? client.subscribeResource({ uri }, options) : client.unsubscribeResource({ uri }, options))
  }

  /**
   * Any request a call makes of the server (tools/call, resources/read, prompts/get, ...): it waits
   * for a connection, sends `send` once more on a new session if the server forgot ours, and says
   * whether it ran when it fails.
   */
  async request<T>(
    send: (client: Client, options: RequestOptions) => Promise<T>,
    { signal, onProgress, client: channel, caller }: Omit<ToolCall, 'subject'>,
  ): Promise<T> {
    // An OAuth connection waiting for its token tries again: the person (or an admin) may have connected since.
    if (this.#state === 'idle' || (this.#state === 'needs_auth' && this.#hooks.bearer)) await this.connect()
    for (let attempt = 0; ; attempt++) {
      const client = this.#client
      const generation = this.#generation
      if (this.#state === 'needs_auth') throw new SkillError('needs_auth', this.#reason!)
      if (!client || this.#state !== 'connected') throw new SkillError('unavailable', this.unavailable()!)
      try {
        const options: RequestOptions = { signal, timeout: MAX_TIMEOUT_MS, ...(onProgress && { onprogress: onProgress, resetTimeoutOnProgress: true }) }
        return await this.#channels.during(channel, caller, signal, () => send(client, options))
      } catch (error) {
        if (signal.aborted) throw error
        const failure = classify(error, client)
        const server = `MCP server "${this.server.name}"`
        if (this.#hooks.bearer) {
          // The connections service had no token to give (needs_auth) or could not reach the provider (unavailable).
          const code = (error as { code?: unknown }).code
          if (code === 'needs_auth' || code === 'unavailable') throw new SkillError(code, (error as Error).message)
          if (isUnauthorized(error)) {
            this.#needsAuth(generation, `it refused the token: ${this.#describe(error)}`)
            throw new SkillError('needs_auth', `${server} refused the token, so the call did not run: ${this.#describe(error)}`)
          }
        }
        switch (failure) {
          case 'session_gone':
            // It restarted and forgot our session: it refused the call, so send it once more on a new session.
            if (attempt === 0) {
              this.#lost(generation, 'the server no longer knows our session (it restarted?)', { retryNow: false })
              await this.connect()
              continue
            }
            throw new SkillError('unavailable', `${server} refused the call twice (unknown session), so it did not run`)
          case 'refused':
            this.#lost(generation, `it refused the connection: ${this.#describe(error)}`)
            throw new SkillError('unavailable', `${server} did not take the call, so it did not run: ${this.#describe(error)}`)
          case 'rejected':
            throw new SkillError('unavailable', `${server} turned the request down, so it did not run: ${this.#describe(error)}`)
          case 'lost':
            this.#lost(generation, `the connection failed: ${this.#describe(error)}`)
            throw new Error(`${server} lost the connection during the call, so whether the tool ran is unknown: ${this.#describe(error)}`)
          case 'answered':
            // A JSON-RPC error, a malformed result or a server-side HTTP error: the connection is fine.
            throw new Error(`${server} answered with an error: ${this.#describe(error)}`)
        }
      }
    }
  }

  async close(): Promise<void> {
    this.#state = 'closed'
    this.#reason = 'skillplane is shutting down'
    this.#generation++
    clearTimeout(this.#retryTimer)
    clearInterval(this.#pingTimer)
    const clients = [this.#client, this.#pending].filter((c): c is Client => c !== null)
    this.#client = null
    this.#pending = null
    await Promise.all(clients.map((client) => endClient(client)))
    await this.#connecting?.catch(() => {})
  }

  async #attempt(): Promise<void> {
    const generation = ++this.#generation
    this.#state = 'connecting'
    let sdk: McpSdk
    try {
      sdk = await loadMcpSdk()
    } catch (error) {
      this.#lost(generation, `can't connect: ${this.#describe(error)}`)
      return
    }
    // Closed while the SDK loaded: start nothing.
    if (generation !== this.#generation) return
    const client = new sdk.Client(
      { name: 'skillplane', version: VERSION },
      {
        // What the server may ask of its client, each passed to the caller of the call that caused it.
        capabilities: { sampling: {}, elicitation: { form: {}, url: {} } },
        listChanged: {
          tools: { autoRefresh: false, debounceMs: 50, onChanged: () => void this.#onListChanged(generation) },
          resources: { autoRefresh: false, debounceMs: 50, onChanged: () => void this.#onResourceListChanged(generation) },
          prompts: { autoRefresh: false, debounceMs: 50, onChanged: () => void this.#listPrompts(generation) },
        },
      },
    )
    client.setNotificationHandler(sdk.ResourceUpdatedNotificationSchema, (notification) => {
      if (generation === this.#generation) this.#subscriptions.updated(notification.params.uri)
    })
    // Any transport error while connected (an HTTP event stream cut off) may be a dead server: ask it now.
    client.onerror = (error) => {
      this.#hooks.logger.debug({ server: this.server.name, err: error }, 'MCP transport error')
      if (this.#state === 'connected' && generation === this.#generation) void this.#ping(generation)
    }
    this.#channels.serve(client, sdk)
    this.#pending = client
    try {
      if (!(await this.#openSecrets(generation))) {
        this.#pending = null
        return
      }
      const transport = this.#transport(sdk)
      await client.connect(transport, { timeout: this.server.connectTimeoutMs })
      deliverProgressFirst(transport)
      const listed = await listAllTools(client, this.server.connectTimeoutMs)
      if (generation !== this.#generation) {
        await endClient(client)
        return
      }
      this.#pending = null
      this.#client = client
      client.onclose = () => this.#lost(generation, 'the connection closed')
      this.#state = 'connected'
      this.#reason = null
      this.#missedPings = 0
      this.#connectedAt = Date.now()
      this.#hooks.logger.info({ server: this.server.name, tools: listed.tools.length }, 'MCP server connected')
      if (client.getServerCapabilities()?.logging) {
        client
          .setLoggingLevel(UPSTREAM_LOG_LEVEL)
          .catch((error: unknown) => this.#hooks.logger.debug({ server: this.server.name, err: error }, 'logging/setLevel failed'))
      }
      this.#hooks.onTools(listed.tools, listed.problems)
      await this.#listResources(client, generation)
      // A new session holds none of the subscriptions the sessions before it held.
      this.#subscriptions.resend(this.#sendSubscription)
      await this.#listPrompts(generation)
      clearInterval(this.#pingTimer)
      this.#pingTimer = setInterval(() => void this.#ping(generation), PING_EVERY_MS)
      this.#pingTimer.unref()
    } catch (error) {
      if (this.#pending === client) this.#pending = null
      await endClient(client)
      const code = (error as { code?: unknown } | null)?.code
      if (this.#hooks.bearer && code === 'needs_auth') this.#needsAuth(generation, (error as Error).message, false)
      else if (this.#hooks.bearer && isUnauthorized(error)) this.#needsAuth(generation, `it refused the token: ${this.#describe(error)}`)
      else if (isUnauthorized(error) && /resource_metadata=/i.test(this.#challenge ?? '')) {
        // An OAuth-protected server (RFC 9728): whose account it acts for is the config's choice, not a guess.
        this.#lost(
          generation,
          `can't connect: it requires OAuth (its 401 names protected-resource metadata): give it oauth: { account: 'person' } (each person connects their own account) or oauth: { account: 'service' } in the config`,
        )
      } else this.#lost(generation, `can't connect: ${this.#describe(error)}`)
    }
  }

  /**
   * No token, or the server refused it: wait in needs_auth until the connection is made again. A
   * refused token (`tell`) is reported, so the connection is marked needs_auth for every surface.
   */
  #needsAuth(generation: number, reason: string, tell = true): void {
    if (generation !== this.#generation || this.#state === 'closed') return
    this.#generation++
    clearInterval(this.#pingTimer)
    clearTimeout(this.#retryTimer)
    const client = this.#client
    this.#client = null
    if (client) {
      client.onclose = undefined
      void endClient(client)
    }
    this.#state = 'needs_auth'
    this.#reason = reason
    this.#subscriptions.lost()
    this.#hooks.logger.warn({ server: this.server.name, reason }, 'MCP server waits for an OAuth connection')
    const token = this.#tokens.at(-1)
    if (tell && token !== undefined) this.#hooks.bearer?.refused(token, reason)
  }

  /**
   * Open the secrets the config names, fresh for each connection (a rotated token is picked up on
   * reconnecting). One missing: the server waits in needs_auth and is tried again when secrets change.
   */
  async #openSecrets(generation: number): Promise<boolean> {
    const names = this.#secretNames()
    if (names.length === 0) return true
    const opened = this.#hooks.secrets ? await this.#hooks.secrets(names) : new Map<string, string>()
    if (generation !== this.#generation) return false
    this.#missing = names.filter((n) => !opened.has(n))
    if (this.#missing.length > 0) {
      this.#state = 'needs_auth'
      this.#reason = `its config names the secret${this.#missing.length === 1 ? '' : 's'} ${this.#missing.join(', ')}, not set: an admin sets it with skillplane secrets set ${this.#missing[0]}`
      this.#hooks.logger.warn({ server: this.server.name, missing: this.#missing }, 'MCP server waits for secrets')
      return false
    }
    this.#opened = opened
    return true
  }

  #secretNames(): string[] {
    return [...new Set(Object.values(configured(this.server)).flatMap((v) => (typeof v === 'string' ? [] : [v.secret])))]
  }

  #transport(sdk: McpSdk): Transport {
    const { server } = this
    const value = (v: Configured) => (typeof v === 'string' ? v : (v.prefix ?? '') + this.#opened.get(v.secret)!)
    const values = (record: Record<string, Configured>) => Object.fromEntries(Object.entries(record).map(([k, v]) => [k, value(v)]))
    if (server.transport === 'http') {
      const bearer = this.#hooks.bearer
      const fetch: typeof globalThis.fetch = async (url, init) => {
        let request = init
        if (bearer) {
          const token = await bearer.token()
          if (this.#tokens.at(-1) !== token) this.#tokens = [...this.#tokens, token].slice(-TOKENS_KEPT)
          const headers = new Headers(init?.headers)
          headers.set('authorization', `Bearer ${token}`)
          request = { ...init, headers }
        }
        const response = await sharedSignalFetch(url, request)
        if (response.status === 401) this.#challenge = response.headers.get('www-authenticate')
        return response
      }
      return new sdk.StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: values(server.headers) }, fetch })
    }
    // The SDK passes only a minimal environment (PATH, HOME, USER, ...) plus what the config sets.
    const transport = new sdk.StdioClientTransport({ command: server.command, args: server.args, env: values(server.env), cwd: server.cwd, stderr: 'pipe' })
    // One buffer per process: a restarted server must not write into its predecessor's tail.
    const tail = { text: '' }
    this.#stderr = tail
    transport.stderr?.on('data', (chunk: Buffer) => {
      tail.text = (tail.text + chunk.toString('utf8')).slice(-STDERR_TAIL)
    })
    return transport
  }

  async #onListChanged(generation: number): Promise<void> {
    if (generation !== this.#generation || !this.#client) return
    await this.#list(this.#client, generation)
  }

  /** List the tools; the newest listing wins even if an older one answers later. */
  async #list(client: Client, generation: number): Promise<void> {
    const listing = ++this.#listing
    try {
      const listed = await listAllTools(client, this.server.connectTimeoutMs)
      if (generation === this.#generation && listing === this.#listing) this.#hooks.onTools(listed.tools, listed.problems)
    } catch (error) {
      this.#lost(generation, `listing tools failed: ${this.#describe(error)}`)
    }
  }

  async #onResourceListChanged(generation: number): Promise<void> {
    if (generation !== this.#generation || !this.#client) return
    await this.#listResources(this.#client, generation)
  }

  /** List the resources and templates; a failure is a problem (the last list stays), never a lost connection. */
  async #listResources(client: Client, generation: number): Promise<void> {
    if (!this.#hooks.onResources) return
    const listing = ++this.#resourceListing
    let listed: ListedResources | null
    try {
      const all = await listAllResources(client, this.server.connectTimeoutMs)
      listed = all && { ...all, resources: this.#cleanListing(all.resources), templates: this.#cleanListing(all.templates) }
      this.#lastResources = listed
    } catch (error) {
      // The last list stays, with the failure as its problem.
      const last = this.#lastResources ?? { resources: [], templates: [], subscribe: false }
      listed = { ...last, problems: [`listing resources failed: ${this.#describe(error)}`] }
    }
    if (generation === this.#generation && listing === this.#resourceListing) this.#hooks.onResources(listed)
  }

  /** A server that declares prompts: list them (the newest listing wins); a failed listing is a problem, not a lost connection. */
  async #listPrompts(generation: number): Promise<void> {
    const client = this.#client
    if (generation !== this.#generation || !client || !this.#hooks.onPrompts || !client.getServerCapabilities()?.prompts) return
    const listing = ++this.#promptListing
    const current = () => generation === this.#generation && listing === this.#promptListing
    try {
      const listed = await listAllPrompts(client, this.server.connectTimeoutMs)
      if (current()) this.#hooks.onPrompts(this.#cleanListing(listed.prompts), listed.problems)
    } catch (error) {
      if (current()) this.#hooks.onPrompts(null, [`listing prompts failed: ${this.#describe(error)}`])
    }
  }

  async #ping(generation: number): Promise<void> {
    const client = this.#client
    if (generation !== this.#generation || !client) return
    try {
      await client.ping({ timeout: this.server.connectTimeoutMs })
      this.#missedPings = 0
    } catch (error) {
      if (this.#hooks.bearer && isUnauthorized(error)) return this.#needsAuth(generation, `it refused the token: ${this.#describe(error)}`)
      // A server busy with a long call may miss one ping; a refused or closed connection is gone at once.
      if (classify(error, client) === 'answered' && ++this.#missedPings < PINGS_MISSED) return
      this.#lost(generation, `it stopped answering pings: ${this.#describe(error)}`)
    }
  }

  /** The connection of `generation` is gone: mark the server down and schedule a reconnection. */
  #lost(generation: number, reason: string, options: { retryNow?: boolean } = {}): void {
    if (generation !== this.#generation || this.#state === 'closed') return
    this.#generation++
    clearInterval(this.#pingTimer)
    const client = this.#client
    this.#client = null
    if (client) {
      client.onclose = undefined
      void endClient(client)
    }
    if (this.#stderr.text.trim()) this.#lastExitStderr = this.#stderr.text.trim()
    const wasConnected = this.#state === 'connected'
    if (wasConnected && this.#connectedAt !== null && Date.now() - this.#connectedAt >= STABLE_MS) this.#failures = 0
    this.#state = 'down'
    this.#reason = reason
    this.#subscriptions.lost()
    // Once per outage, not once per retry.
    if (wasConnected || this.#failures === 0) {
      this.#hooks.logger.warn(
        { server: this.server.name, reason },
        wasConnected ? 'MCP server disconnected' : 'MCP server is not reachable; retrying with backoff',
      )
    }
    if (options.retryNow === false || this.#hooks.reconnect === false) return
    const delay = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** this.#failures++) * (0.8 + Math.random() * 0.4)
    this.#retryAt = Date.now() + delay
    clearTimeout(this.#retryTimer)
    this.#retryTimer = setTimeout(() => void this.connect(), delay)
    this.#retryTimer.unref()
  }
}

type Failure = 'session_gone' | 'refused' | 'rejected' | 'lost' | 'answered'

/** What a failed call means for the call (did it run?) and for the connection (is it gone?). */
function classify(error: unknown, client: Client): Failure {
  if (isHttpError(error)) {
    if (error.code === 404) return 'session_gone'
    if (error.code === 401 || error.code === 403) return 'refused'
    return error.code < 500 ? 'rejected' : 'answered'
  }
  const code = (error as { cause?: { code?: string } } | null)?.cause?.code ?? (error as { code?: unknown } | null)?.code
  if (code === 'ECONNREFUSED') return 'refused'
  // The SDK drops the transport when the connection closes; a live transport means the server answered.
  const sdk = loadedMcpSdk()
  if (!client.transport || (sdk && error instanceof sdk.McpError && error.code === sdk.ErrorCode.ConnectionClosed && !client.transport)) return 'lost'
  if (error instanceof TypeError && /fetch failed|terminated|socket/i.test(error.message)) return 'lost'
  return 'answered'
}

/** Every page of tools/list, each tool checked on its own; bounded in pages, tools and time. */
async function listAllTools(client: Client, timeoutMs: number): Promise<{ tools: Tool[]; problems: ToolProblem[] }> {
  // Asked even when `tools` is not declared (servers omit it and still list): -32601 to it means none (a resource-only low-level SDK `Server`).
  return parseTools(await listPages(client, 'tools/list', 'tools', { timeoutMs, max: MAX_TOOLS, noneIfUnanswered: true }))
}

/**
 * The SDK's HTTP client passes one AbortSignal to all its requests, and fetch lets go of each
 * request's listener only at garbage collection: a busy connection would warn about a leak that
 * is not one. A signal of its own per request (following the shared one) keeps listeners apart.
 */
const sharedSignalFetch: typeof fetch = (url, init) => fetch(url, init?.signal ? { ...init, signal: AbortSignal.any([init.signal]) } : init)

/** Close a client, ending an HTTP session on the server first (best effort). */
async function endClient(client: Client): Promise<void> {
  client.onclose = undefined
  const transport = client.transport
  const sdk = loadedMcpSdk()
  if (sdk && transport instanceof sdk.StreamableHTTPClientTransport && transport.sessionId) {
    await Promise.race([transport.terminateSession().catch(() => {}), new Promise((resolve) => setTimeout(resolve, 1_000).unref())])
  }
  await client.close().catch(() => {})
}

/** An error as one short line, without credentials that URLs in it carry. */
function describe(error: unknown, clean: (text: string) => string = (text) => text): string {
  let text: string
  if (isHttpError(error)) text = `HTTP ${error.code}: ${error.message}`
  else if (error instanceof z.ZodError)
    text = `a malformed result (${error.issues.length} schema problem${error.issues.length === 1 ? '' : 's'}, first at ${error.issues[0]?.path.join('.') || '(root)'}: ${error.issues[0]?.message})`
  else if (error instanceof Error) {
    const cause = (error as { cause?: { message?: string } }).cause
    text = cause?.message && !error.message.includes(cause.message) ? `${error.message} (${cause.message})` : error.message
  } else text = String(error)
  // Scrubbed before it is cut, so no part of a secret survives at the cut.
  text = clean(scrubCredentials(text.replace(/\s+/g, ' ').trim()))
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text
}

/** The server answered 401: the credential (the OAuth token) is not good (any more). */
function isUnauthorized(error: unknown): boolean {
  return isHttpError(error) && error.code === 401
}

/** An HTTP error status the SDK's client got (none before a connection loaded the SDK). */
function isHttpError(error: unknown): error is StreamableHTTPError & { code: number } {
  const sdk = loadedMcpSdk()
  return sdk !== undefined && error instanceof sdk.StreamableHTTPError && error.code !== undefined && error.code > 0
}

function scrubCredentials(text: string): string {
  return text.replace(/\/\/[^/@\s]*@/g, '//')
}

function configured(server: ResolvedMcpServer): Record<string, Configured> {
  return server.transport === 'http' ? server.headers : server.env
}
