import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ErrorCode, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { ResolvedMcpServer } from '../../config/resolve-config.js'
import type { SkillLogger } from '../../skill/skill-types.js'
import { SkillError } from '../../runtime/skill-error.js'
import { VERSION } from '../../version.js'
import { MAX_TIMEOUT_MS } from '../../skill/create-skill.js'

/** idle: not connected yet, and connects on its first call (a one-shot CLI command). */
export type McpServerState = 'idle' | 'connecting' | 'connected' | 'down' | 'closed'

export interface McpServerStatus {
  name: string
  transport: 'stdio' | 'http'
  /** The command line or URL (headers and environment are never shown). */
  target: string
  state: McpServerState
  /** Why it is not connected, when it is not. */
  reason: string | null
  connectedAt: string | null
  /** When the next reconnection attempt is due, while down. */
  retryAt: string | null
  /**
   * The last lines a stdio server wrote to stderr. Shown to admins only: it may hold anything, so
   * it never goes into reasons or call errors that agents see.
   */
  stderr: string | null
}

interface Hooks {
  /** The server's current tool list: after each connection and each list change. */
  onTools(tools: Tool[]): void
  logger: SkillLogger
}

const FIRST_RETRY_MS = 250
const MAX_RETRY_MS = 30_000
const PING_EVERY_MS = 10_000
const STDERR_TAIL = 4096

/**
 * One configured MCP server: connects with the official SDK client, lists its tools (all pages),
 * follows list changes, notices a lost connection (close, failed call, failed ping) and reconnects
 * with exponential backoff until closed.
 */
export class McpConnection {
  readonly server: ResolvedMcpServer
  readonly #hooks: Hooks
  #client: Client | null = null
  #generation = 0
  #state: McpServerState = 'idle'
  #reason: string | null = 'not connected yet'
  #connectedAt: string | null = null
  #retryAt: number | null = null
  #failures = 0
  #retryTimer: NodeJS.Timeout | undefined
  #pingTimer: NodeJS.Timeout | undefined
  #stderr = ''
  #connecting: Promise<void> | null = null

  constructor(server: ResolvedMcpServer, hooks: Hooks) {
    this.server = server
    this.#hooks = hooks
  }

  /** Why a call can't go to this server now, or null when it can. */
  unavailable(): string | null {
    if (this.#state === 'connected' || this.#state === 'idle') return null
    return `MCP server "${this.server.name}" is ${this.#state === 'connecting' ? 'connecting' : 'not connected'}: ${this.#reason}`
  }

  status(): McpServerStatus {
    const { server } = this
    return {
      name: server.name,
      transport: server.transport,
      target: server.transport === 'stdio' ? [server.command, ...server.args].join(' ') : redactUrl(server.url),
      state: this.#state,
      reason: this.#state === 'connected' ? null : this.#reason,
      connectedAt: this.#state === 'connected' ? this.#connectedAt : null,
      retryAt: this.#state === 'down' && this.#retryAt ? new Date(this.#retryAt).toISOString() : null,
      stderr: this.#stderr.trim() || null,
    }
  }

  /** Connect now (a first attempt, or an operator's retry); resolves when the attempt has settled. */
  connect(): Promise<void> {
    if (this.#state === 'closed') return Promise.resolve()
    clearTimeout(this.#retryTimer)
    this.#connecting ??= this.#attempt().finally(() => {
      this.#connecting = null
    })
    return this.#connecting
  }

  /** List the tools again (an operator's reload), reconnecting when down. */
  async refresh(): Promise<void> {
    if (this.#state !== 'connected' || !this.#client) return this.connect()
    try {
      this.#hooks.onTools(await listAllTools(this.#client, this.server.connectTimeoutMs))
    } catch (error) {
      this.#lost(this.#generation, `listing tools failed: ${describe(error)}`)
    }
  }

  /** The pipeline's deadline aborts `signal`; the SDK's own 60 s request timeout must not cut in first. */
  async callTool(name: string, args: unknown, signal: AbortSignal): Promise<CallToolResult> {
    if (this.#state === 'idle') await this.connect()
    for (let attempt = 0; ; attempt++) {
      const client = this.#client
      const generation = this.#generation
      if (!client || this.#state !== 'connected') throw new SkillError('unavailable', this.unavailable()!)
      try {
        return (await client.callTool({ name, arguments: args as Record<string, unknown> }, undefined, {
          signal,
          timeout: MAX_TIMEOUT_MS,
        })) as CallToolResult
      } catch (error) {
        if (signal.aborted) throw error
        if (error instanceof McpError && error.code !== ErrorCode.ConnectionClosed) {
          // The server answered with a JSON-RPC error (unknown tool, bad arguments, a failing handler).
          throw new Error(`MCP server "${this.server.name}" answered ${error.message}`)
        }
        if (isSessionGone(error) && attempt === 0) {
          // The server forgot our session (it restarted): it refused the call, so reconnect and send it again.
          this.#lost(generation, 'the server no longer knows our session (it restarted?)', { retryNow: false })
          await this.connect()
          continue
        }
        const refused = isRefused(error)
        this.#lost(generation, refused ? `it refused the call: ${describe(error)}` : `the connection failed: ${describe(error)}`)
        if (refused) throw new SkillError('unavailable', `MCP server "${this.server.name}" did not take the call, so it did not run: ${describe(error)}`)
        throw new Error(`MCP server "${this.server.name}" lost the connection during the call, so whether the tool ran is unknown: ${describe(error)}`)
      }
    }
  }

  async close(): Promise<void> {
    this.#state = 'closed'
    this.#reason = 'skillplane is shutting down'
    clearTimeout(this.#retryTimer)
    clearInterval(this.#pingTimer)
    const client = this.#client
    this.#client = null
    this.#generation++
    await client?.close().catch(() => {})
  }

  async #attempt(): Promise<void> {
    const generation = ++this.#generation
    this.#state = 'connecting'
    const client = new Client(
      { name: 'skillplane', version: VERSION },
      {
        capabilities: {},
        listChanged: {
          tools: { autoRefresh: false, debounceMs: 50, onChanged: () => void this.#onListChanged(generation) },
        },
      },
    )
    client.onerror = (error) => this.#hooks.logger.debug({ server: this.server.name, err: error }, 'MCP transport error')
    try {
      await client.connect(this.#transport(), { timeout: this.server.connectTimeoutMs })
      const tools = await listAllTools(client, this.server.connectTimeoutMs)
      if (generation !== this.#generation) {
        await client.close().catch(() => {})
        return
      }
      this.#client = client
      client.onclose = () => this.#lost(generation, 'the connection closed')
      this.#state = 'connected'
      this.#reason = null
      this.#failures = 0
      this.#connectedAt = new Date().toISOString()
      this.#hooks.logger.info({ server: this.server.name, tools: tools.length }, 'MCP server connected')
      this.#hooks.onTools(tools)
      clearInterval(this.#pingTimer)
      this.#pingTimer = setInterval(() => void this.#ping(generation), PING_EVERY_MS)
      this.#pingTimer.unref()
    } catch (error) {
      await client.close().catch(() => {})
      this.#lost(generation, `can't connect: ${describe(error)}`)
    }
  }

  #transport(): Transport {
    const { server } = this
    if (server.transport === 'http') {
      return new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: server.headers } })
    }
    // The SDK passes only a minimal environment (PATH, HOME, USER, ...) plus what the config sets.
    this.#stderr = ''
    const transport = new StdioClientTransport({ command: server.command, args: server.args, env: server.env, cwd: server.cwd, stderr: 'pipe' })
    transport.stderr?.on('data', (chunk: Buffer) => {
      this.#stderr = (this.#stderr + chunk.toString('utf8')).slice(-STDERR_TAIL)
    })
    return transport
  }

  async #onListChanged(generation: number): Promise<void> {
    if (generation !== this.#generation || !this.#client) return
    try {
      this.#hooks.onTools(await listAllTools(this.#client, this.server.connectTimeoutMs))
    } catch (error) {
      this.#lost(generation, `listing tools after a change failed: ${describe(error)}`)
    }
  }

  async #ping(generation: number): Promise<void> {
    if (generation !== this.#generation || !this.#client) return
    try {
      await this.#client.ping({ timeout: this.server.connectTimeoutMs })
    } catch (error) {
      this.#lost(generation, `it stopped answering pings: ${describe(error)}`)
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
      void client.close().catch(() => {})
    }
    const wasConnected = this.#state === 'connected'
    this.#state = 'down'
    this.#reason = reason
    // Once per outage, not once per retry.
    if (wasConnected || this.#failures === 0) this.#hooks.logger.warn({ server: this.server.name, reason }, wasConnected ? 'MCP server disconnected' : 'MCP server is not reachable; retrying with backoff')
    if (options.retryNow === false) return
    const delay = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** this.#failures++) * (0.8 + Math.random() * 0.4)
    this.#retryAt = Date.now() + delay
    clearTimeout(this.#retryTimer)
    this.#retryTimer = setTimeout(() => void this.connect(), delay)
    this.#retryTimer.unref()
  }
}

/** Every page of tools/list. */
async function listAllTools(client: Client, timeoutMs: number): Promise<Tool[]> {
  const tools: Tool[] = []
  let cursor: string | undefined
  for (let page = 0; page < 1000; page++) {
    const result = await client.listTools(cursor ? { cursor } : undefined, { timeout: timeoutMs })
    tools.push(...result.tools)
    cursor = result.nextCursor
    if (!cursor) return tools
  }
  throw new Error('tools/list returned more than 1000 pages')
}

/** An error as one line, with any credentials in URLs it quotes removed. */
function describe(error: unknown): string {
  return describeRaw(error).replace(/\/\/[^/@\s]*@/g, '//')
}

function describeRaw(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  if (error instanceof StreamableHTTPError && error.code !== undefined && error.code > 0) return `HTTP ${error.code}: ${error.message}`
  const cause = (error as { cause?: { code?: string; message?: string } }).cause
  return cause?.message && !error.message.includes(cause.message) ? `${error.message} (${cause.message})` : error.message
}

/** The server forgot our session (it restarted): it refused the call, which can be sent again on a new one. */
function isSessionGone(error: unknown): boolean {
  return error instanceof StreamableHTTPError && error.code === 404
}

/** The call never reached a tool: no connection, or the server turned the request down (4xx). */
function isRefused(error: unknown): boolean {
  if (error instanceof StreamableHTTPError) return error.code !== undefined && error.code >= 400 && error.code < 500
  const cause = (error as { cause?: { code?: string } } | null)?.cause
  return cause?.code === 'ECONNREFUSED' || (error as { code?: string } | null)?.code === 'ECONNREFUSED'
}

/** A URL as shown to operators: no user or password. */
function redactUrl(url: string): string {
  const parsed = new URL(url)
  parsed.username = ''
  parsed.password = ''
  return parsed.toString()
}
