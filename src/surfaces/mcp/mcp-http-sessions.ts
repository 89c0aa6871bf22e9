import { randomUUID } from 'node:crypto'
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { Skillplane } from '../../agents/index.js'
import type { Caller } from '../../skill/index.js'
import { openMcpServer } from './open-mcp-server.js'

interface Session {
  transport: WebStandardStreamableHTTPServerTransport
  server: Server
  /** The API key that opened it (or the caller's id without one): only that key may use it. */
  keyId: string
  /** The role it was opened with: its tools were listed for that role. */
  role: string
  /** When a request on it last started or finished (clock milliseconds). */
  lastUsed: number
  /** Requests on it whose answer is still being sent (a tool call, the GET event stream). */
  requests: number
}

export interface McpSessionLimits {
  /** Sessions open at once in this process, all keys together. */
  maxSessions: number
  /** Sessions one key may hold; its next `initialize` closes one of them. */
  maxSessionsPerKey: number
  /** A session with no request for this long is closed. */
  idleMs: number
  /** Milliseconds since the epoch; tests pass their own. */
  clock: () => number
}

/** The Node response a request is answered on (Hono's node server passes it): it tells when the answer is sent. */
export interface SentSignal {
  once(event: 'close', listener: () => void): unknown
}

const DEFAULT_LIMITS: McpSessionLimits = { maxSessions: 1_000, maxSessionsPerKey: 100, idleMs: 10 * 60_000, clock: Date.now }

const SWEEP_MS = 60_000
// What a 503 for a table of sessions all in use asks clients to wait before retrying, in seconds.
const RETRY_AFTER_S = 5

/**
 * Streamable HTTP sessions of the MCP endpoint: one MCP server per session, bound to the API key
 * that initialised it. A new session beyond the caps closes the least recently used idle one
 * (the key's own first); sessions idle for `idleMs` are closed. A client then initialises again.
 */
export class McpHttpSessions {
  readonly #plane: Skillplane
  readonly #limits: McpSessionLimits
  /** In order of use, least recently used first. */
  readonly #sessions = new Map<string, Session>()
  readonly #sweep: NodeJS.Timeout

  constructor(plane: Skillplane, limits: Partial<McpSessionLimits> = {}) {
    this.#plane = plane
    this.#limits = { ...DEFAULT_LIMITS, ...limits }
    this.#sweep = setInterval(() => {
      for (const [id, session] of this.#sessions) if (this.#expired(session)) void this.#end(id, session)
    }, SWEEP_MS)
    this.#sweep.unref()
  }

  get size(): number {
    return this.#sessions.size
  }

  /** Sessions with a request open (answers still being sent, event streams). */
  get inUse(): number {
    let n = 0
    for (const session of this.#sessions.values()) if (session.requests > 0) n++
    return n
  }

  /** `sent`, when the server has one, says when the answer has gone out (cheaper than watching the body stream). */
  async handle(request: Request, caller: Caller, sent?: SentSignal): Promise<Response> {
    const id = request.headers.get('mcp-session-id')
    if (id) {
      const session = this.#sessions.get(id)
      // Expiry is exact: the sweep only frees the memory.
      // A caller whose role changed since (their user's or group's) starts again with the tools the new role sees.
      if (session && (this.#expired(session) || (session.keyId === ownerOf(caller) && session.role !== roleOf(caller)))) void this.#end(id, session)
      else if (session?.keyId === ownerOf(caller)) return this.#serve(id, session, request, sent)
      // Another key's session, like an expired one, answers as an unknown one.
      return jsonRpcError(404, -32001, 'Session not found: initialise a new one')
    }
    if (request.method !== 'POST') return jsonRpcError(400, -32000, 'Bad Request: no mcp-session-id header; initialise with a POST first')
    const body: unknown = await request.json().catch(() => undefined)
    if (body === undefined) return jsonRpcError(400, -32700, 'Parse error: Invalid JSON')
    // The MCP SDK loads with the first session: an app that never serves /mcp never pays for it.
    const [{ WebStandardStreamableHTTPServerTransport }, { isInitializeRequest }] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
      import('@modelcontextprotocol/sdk/types.js'),
    ])
    // Only an initialize request may close another session to make room.
    const opening = [body].flat().some((message) => isInitializeRequest(message))
    const sessionId = randomUUID()
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => sessionId,
      onsessionclosed: () => void this.#end(sessionId, session),
    })
    const server = await openMcpServer(this.#plane, { caller, conversationId: `mcp:${randomUUID()}` })
    const session: Session = { transport, server, keyId: ownerOf(caller), role: roleOf(caller), lastUsed: this.#limits.clock(), requests: 0 }
    let response: Response
    try {
      await server.connect(transport)
      // No await from making room to being in use: concurrent initialisations can't overshoot a cap or reclaim this one.
      if (opening && !this.#makeRoom(ownerOf(caller))) {
        response = jsonRpcError(503, -32000, `too many MCP sessions (${this.#limits.maxSessions}), all in use; retry shortly`, {
          'retry-after': String(RETRY_AFTER_S),
        })
      } else {
        if (opening) this.#sessions.set(sessionId, session)
        response = await this.#serve(sessionId, session, request, sent, body)
      }
    } catch (error) {
      await this.#end(sessionId, session)
      throw error
    }
    // Not an initialize request, or one refused here or by the transport: no session came of it.
    if (!opening || !transport.sessionId) await this.#end(sessionId, session)
    return response
  }

  async close(): Promise<void> {
    clearInterval(this.#sweep)
    await Promise.all([...this.#sessions].map(([id, session]) => this.#end(id, session)))
  }

  /** The transport's answer; the session counts as in use until that answer is sent in full. */
  async #serve(id: string, session: Session, request: Request, sent: SentSignal | undefined, parsedBody?: unknown): Promise<Response> {
    this.#use(id, session, 1)
    let released = false
    const done = () => {
      if (released) return
      released = true
      this.#use(id, session, -1)
    }
    // Listening before the transport answers: a client that hangs up meanwhile closes the response before the answer exists.
    sent?.once('close', done)
    let response: Response
    try {
      response = await session.transport.handleRequest(request, parsedBody === undefined ? undefined : { parsedBody })
    } catch (error) {
      done()
      throw error
    }
    return sent ? response : whenSent(response, done)
  }

  #use(id: string, session: Session, change: 1 | -1): void {
    session.requests += change
    session.lastUsed = this.#limits.clock()
    // Re-inserting keeps the map in order of use; a closed session stays out.
    if (this.#sessions.delete(id)) this.#sessions.set(id, session)
  }

  #expired(session: Session): boolean {
    return session.requests === 0 && this.#limits.clock() - session.lastUsed >= this.#limits.idleMs
  }

  /** Close what must go for one more session of this key; false if only sessions in use could. */
  #makeRoom(keyId: string): boolean {
    const byUse = [...this.#sessions]
    const idle = ([, session]: [string, Session]) => session.requests === 0
    const own = byUse.filter(([, session]) => session.keyId === keyId)
    // A key at its cap gives up one of its own, in use or not: a leaking client hurts only itself.
    if (own.length >= this.#limits.maxSessionsPerKey) {
      void this.#end(...(own.find(idle) ?? own[0]!))
      return true
    }
    if (byUse.length < this.#limits.maxSessions) return true
    const victim = byUse.find(idle)
    if (victim) void this.#end(...victim)
    return victim !== undefined
  }

  async #end(id: string, session: Session): Promise<void> {
    if (this.#sessions.get(id) === session) this.#sessions.delete(id)
    await session.server.close().catch(() => {})
  }
}

/** The same response, calling `done` once its body has been sent in full or the client has gone (without a `SentSignal`). */
function whenSent(response: Response, done: () => void): Response {
  if (!response.body) {
    done()
    return response
  }
  let pending = true
  const finish = () => {
    if (pending) done()
    pending = false
  }
  const reader = response.body.getReader()
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const chunk = await reader.read()
        if (chunk.done) {
          finish()
          controller.close()
        } else controller.enqueue(chunk.value)
      } catch (error) {
        finish()
        controller.error(error)
      }
    },
    cancel(reason) {
      finish()
      return reader.cancel(reason)
    },
  })
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers })
}

function jsonRpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  })
}

const ownerOf = (caller: Caller) => caller.keyId ?? caller.id
const roleOf = (caller: Caller) => (caller.kind === 'user' ? caller.role : 'agent')
