import { randomUUID } from 'node:crypto'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { Skillplane } from '../../plane/skillplane.js'
import type { Caller } from '../../skill/skill-types.js'
import { createMcpServer } from './create-mcp-server.js'

interface Session {
  transport: WebStandardStreamableHTTPServerTransport
  server: Server
  /** The API key that opened it: only that key may use it. */
  keyId: string
  lastSeen: number
}

const MAX_SESSIONS = 1_000
const IDLE_MS = 60 * 60_000

/**
 * Streamable HTTP sessions of the MCP endpoint: one MCP server per session, bound to the API key
 * that initialised it. Idle sessions are closed after an hour; a client then initialises again.
 */
export class McpHttpSessions {
  readonly #plane: Skillplane
  readonly #sessions = new Map<string, Session>()
  readonly #sweep: NodeJS.Timeout

  constructor(plane: Skillplane) {
    this.#plane = plane
    this.#sweep = setInterval(() => {
      const cutoff = Date.now() - IDLE_MS
      for (const [id, session] of this.#sessions) if (session.lastSeen < cutoff) void this.#end(id, session)
    }, 60_000)
    this.#sweep.unref()
  }

  get size(): number {
    return this.#sessions.size
  }

  async handle(request: Request, caller: Caller): Promise<Response> {
    const id = request.headers.get('mcp-session-id')
    if (id) {
      const session = this.#sessions.get(id)
      // Another key's session answers like an unknown one.
      if (!session || session.keyId !== caller.id) return jsonRpcError(404, -32001, 'Session not found: initialise a new one')
      session.lastSeen = Date.now()
      return session.transport.handleRequest(request)
    }
    if (request.method !== 'POST') return jsonRpcError(400, -32000, 'Bad Request: no mcp-session-id header; initialise with a POST first')
    if (this.#sessions.size >= MAX_SESSIONS) return jsonRpcError(503, -32000, `too many MCP sessions (${MAX_SESSIONS}); close some (DELETE /mcp) and retry`)
    let session: Session | undefined
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => {
        if (session) this.#sessions.set(sessionId, session)
      },
      onsessionclosed: (sessionId) => {
        const closed = this.#sessions.get(sessionId)
        if (closed) void this.#end(sessionId, closed)
      },
    })
    const server = createMcpServer(this.#plane, { caller, conversationId: `mcp:${randomUUID()}` })
    session = { transport, server, keyId: caller.id, lastSeen: Date.now() }
    let response: Response
    try {
      await server.connect(transport)
      response = await transport.handleRequest(request)
    } catch (error) {
      await server.close().catch(() => {})
      throw error
    }
    // Not an initialize request: no session came of it.
    if (!transport.sessionId) await server.close().catch(() => {})
    return response
  }

  async close(): Promise<void> {
    clearInterval(this.#sweep)
    await Promise.all([...this.#sessions].map(([id, session]) => this.#end(id, session)))
  }

  async #end(id: string, session: Session): Promise<void> {
    this.#sessions.delete(id)
    await session.server.close().catch(() => {})
  }
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json' },
  })
}
