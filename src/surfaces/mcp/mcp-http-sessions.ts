import { randomUUID } from 'node:crypto'
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { Skillplane } from '../../agents/index.js'
import { LOG_LEVELS, type Caller, type LogLevel } from '../../skill/index.js'
import { openMcpServer } from './open-mcp-server.js'
import { SessionEventStore } from './session-event-store.js'
import { KeyStanding } from './key-standing.js'

interface Session {
  transport: WebStandardStreamableHTTPServerTransport
  server: Server
  /** Who opened it. */
  caller: Caller
  /** The API key that opened it (or the caller's id without one): only that key may use it. */
  keyId: string
  /** The role it was opened with: its tools were listed for that role. */
  role: string
  /** When a request on it last started or finished (clock milliseconds). */
  lastUsed: number
  /** Requests on it whose answer is still being sent (a tool call, the GET event stream). */
  requests: number
  /** The protocol version it negotiated at initialize, and the supported versions before it. */
  protocolVersion: string
  olderVersions: readonly string[]
  /** Its last use is being written to the store (`stale`: and changed again since). */
  writing: boolean
  stale: boolean
  /** The last use the store was last told of. */
  storedUse: number
}

export interface McpSessionLimits {
  /** Sessions open at once in this process, all keys together. */
  maxSessions: number
  /** Sessions one key may hold; its next `initialize` closes one of them. */
  maxSessionsPerKey: number
  /** A session with no request for this long is closed. */
  idleMs: number
  /** The newest server-sent events a session keeps for clients that reconnect. */
  maxEventsPerSession: number
  /** What a session's stored events may take together, in bytes as stored (sealed: about 4/3 of their JSON). */
  maxBytesPerSession: number
  /** The largest message stored for resuming (its JSON, in bytes): a larger one goes out live, and replays as a note that it is missing. */
  maxEventBytes: number
  /** Milliseconds since the epoch; tests pass their own. */
  clock: () => number
}

/** The Node response a request is answered on (Hono's node server passes it): it tells when the answer is sent. */
export interface SentSignal {
  once(event: 'close', listener: () => void): unknown
}

const DEFAULT_LIMITS: McpSessionLimits = {
  maxSessions: 1_000,
  maxSessionsPerKey: 100,
  idleMs: 10 * 60_000,
  maxEventsPerSession: 1_000,
  maxBytesPerSession: 4 * 1024 * 1024,
  maxEventBytes: 256 * 1024,
  clock: Date.now,
}

const SWEEP_MS = 60_000
// How stale a session's stored last use may get (or a twentieth of the idle timeout): a peer re-opening it sees its expiry within this.
const USE_STORED_EVERY_MS = 30_000
// What a 503 for a table of sessions all in use asks clients to wait before retrying, in seconds.
const RETRY_AFTER_S = 5
// How long a client waits before reconnecting a stream that ended without its answer (the SSE retry field).
const RECONNECT_MS = 1_000
// The first protocol version whose clients read priming events and may be asked to poll (SEP-1699).
const POLLING_VERSION = '2025-11-25'

type Sdk = Awaited<ReturnType<typeof loadSdk>>
// The MCP SDK loads with the first session: an app that never serves /mcp never pays for it.
const loadSdk = async () => {
  const [{ WebStandardStreamableHTTPServerTransport }, types] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ])
  return { WebStandardStreamableHTTPServerTransport, ...types }
}

/**
 * Streamable HTTP sessions of the MCP endpoint: one MCP server per session, bound to the API key
 * that initialised it. A new session beyond the caps closes the least recently used idle one
 * (the key's own first); sessions idle for `idleMs` are closed. A client then initialises again.
 * Sessions and their streams' events are stored, so a client reconnecting with Last-Event-ID gets
 * what it missed, and a session this manager does not hold (a restart, a peer's) is re-opened from the store,
 * but only once the manager that served it is gone: two managers serving one session would number their
 * requests to its client alike, and an answer could reach the wrong one. While that manager lives, the
 * session is unknown here (404) and the client initialises a new one.
 */
export class McpHttpSessions {
  readonly #plane: Skillplane
  readonly #limits: McpSessionLimits
  /** In order of use, least recently used first. */
  readonly #sessions = new Map<string, Session>()
  /** Sessions being re-opened from the store, by key and id: concurrent requests for one share its re-opening. */
  readonly #reopening = new Map<string, Promise<Session | 'full' | undefined>>()
  readonly #sweep: NodeJS.Timeout
  readonly #standing: KeyStanding
  readonly #unforget: () => void

  constructor(plane: Skillplane, limits: Partial<McpSessionLimits> = {}) {
    this.#plane = plane
    this.#limits = { ...DEFAULT_LIMITS, ...limits }
    this.#sweep = setInterval(() => void this.#sweepOnce(), SWEEP_MS)
    this.#sweep.unref()
    this.#standing = new KeyStanding(plane.people.keys)
    // A key revoked (a user disabled, a role changed) here: its sessions end now, not at its next request.
    this.#unforget = plane.people.keys.onForget(() => {
      this.#standing.forget()
      for (const [id, session] of this.#sessions)
        void this.#standing.stands(session.caller, session.role).then((stands) => {
          if (!stands) void this.#end(id, session)
        })
    })
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
      const session = this.#sessions.get(id) ?? (await this.#reopen(id, caller, request))
      if (session === 'full') return this.#full()
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
    const sdk = await loadSdk()
    // Only an initialize request may close another session to make room.
    const initialize = [body].flat().find((message) => sdk.isInitializeRequest(message))
    const opening = initialize !== undefined
    const sessionId = randomUUID()
    const conversationId = `mcp:${randomUUID()}`
    const session = await this.#open(sdk, sessionId, caller, conversationId, initialize?.params.protocolVersion)
    // Stored before the client learns its id: its next request may reach another manager.
    if (opening) await this.#store(sessionId, session, conversationId, initialize.params)
    let response: Response
    try {
      // No await from making room to being in use: concurrent initialisations can't overshoot a cap or reclaim this one.
      if (opening && !this.#makeRoom(ownerOf(caller))) response = this.#full()
      else {
        if (opening) this.#sessions.set(sessionId, session)
        response = await this.#serve(sessionId, session, request, sent, body)
      }
    } catch (error) {
      await this.#end(sessionId, session)
      throw error
    }
    // Not an initialize request, or one refused here or by the transport: no session came of it.
    if (!opening || !session.transport.sessionId) await this.#end(sessionId, session)
    return response
  }

  /** Close this manager's sessions; the store keeps them for a restarted manager or a peer to re-open. */
  async close(): Promise<void> {
    clearInterval(this.#sweep)
    this.#unforget()
    await Promise.all([...this.#sessions].map(([id, session]) => this.#end(id, session, { forget: false })))
  }

  get #managerId(): string {
    return this.#plane.status.managerId
  }

  /** A new session's transport (with its event store) and MCP server, connected. */
  async #open(
    sdk: Sdk,
    sessionId: string,
    caller: Caller,
    conversationId: string,
    requestedVersion: string | undefined,
    { replaying = false, logLevel = null as LogLevel | null } = {},
  ) {
    const { clock, maxEventsPerSession, maxBytesPerSession, maxEventBytes } = this.#limits
    const repo = this.#plane.people.mcpSessions
    const logger = this.#plane.logger
    const events = new SessionEventStore(
      { repo, sessionId, maxEvents: maxEventsPerSession, maxBytes: maxBytesPerSession, maxEventBytes, clock, logger },
      { recording: !replaying },
    )
    const transport = new sdk.WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => sessionId,
      onsessionclosed: () => void this.#end(sessionId, session),
      eventStore: events,
      retryInterval: RECONNECT_MS,
    })
    // The level the client sets is stored with the session: a re-opened one starts at it.
    const onSet = (level: LogLevel) =>
      void repo
        .setLogLevel(sessionId, level)
        .catch((error: unknown) => logger.warn({ err: error, mcpSession: sessionId }, "storing an MCP session's logging level failed"))
    const server = await openMcpServer(this.#plane, { caller, conversationId, logging: { level: logLevel, onSet } })
    // What the server's initialize answers: the client's version when supported, else the latest.
    const protocolVersion =
      requestedVersion !== undefined && sdk.SUPPORTED_PROTOCOL_VERSIONS.includes(requestedVersion) ? requestedVersion : sdk.LATEST_PROTOCOL_VERSION
    // What the server sends of its own (an update, a log line, a request) goes only while the key still stands; answers
    // go to requests the key was just checked for. In order: a call's log line must not follow its answer.
    const send = transport.send.bind(transport)
    let sending: Promise<unknown> = Promise.resolve()
    transport.send = (message, options) => {
      const sent = sending.then(async () => {
        if ((('result' in message || 'error' in message) && 'id' in message) || (await this.#standing.stands(caller, session.role)))
          return send(message, options)
        void this.#end(sessionId, session)
      })
      sending = sent.catch(() => {})
      return sent
    }
    const session: Session & { events: SessionEventStore } = {
      transport,
      server,
      events,
      caller,
      keyId: ownerOf(caller),
      role: roleOf(caller),
      lastUsed: clock(),
      // Nothing stored yet as far as it knows (a re-opened one): its first use is written.
      storedUse: 0,
      requests: 0,
      protocolVersion,
      olderVersions: sdk.SUPPORTED_PROTOCOL_VERSIONS.filter((version) => version < protocolVersion),
      writing: false,
      stale: false,
    }
    try {
      await server.connect(transport)
    } catch (error) {
      await server.close().catch(() => {})
      throw error
    }
    return session
  }

  /** Keep a new session in the store, for a restarted manager or a peer to re-open. */
  async #store(id: string, session: Session, conversationId: string, initialize: unknown): Promise<void> {
    const now = this.#limits.clock()
    const record = {
      id,
      keyId: session.keyId,
      role: session.role,
      conversationId,
      initialize,
      logLevel: null,
      holder: this.#managerId,
      createdAt: now,
      lastUsed: now,
    }
    await this.#plane.people.mcpSessions.insert(record).catch((error: unknown) => {
      this.#plane.logger.warn({ err: error, mcpSession: id }, 'storing an MCP session failed: it lasts only as long as this manager holds it')
    })
  }

  /** A session this manager does not hold, from the store; 'full' when making room for it would close only sessions in use. */
  #reopen(id: string, caller: Caller, request: Request): Promise<Session | 'full' | undefined> {
    // Per key: another key's request for the same id never decides what the owner's gets.
    const slot = `${ownerOf(caller)}\n${id}`
    let reopening = this.#reopening.get(slot)
    if (!reopening) {
      reopening = this.#restore(id, caller, request).finally(() => this.#reopening.delete(slot))
      this.#reopening.set(slot, reopening)
    }
    return reopening
  }

  async #restore(id: string, caller: Caller, request: Request): Promise<Session | 'full' | undefined> {
    const repo = this.#plane.people.mcpSessions
    const stored = await repo.find(id).catch((error: unknown) => {
      this.#plane.logger.warn({ err: error, mcpSession: id }, 'reading a stored MCP session failed: answering as for an unknown one')
      return undefined
    })
    // Another key's session is left alone: it answers as an unknown one.
    if (!stored || stored.keyId !== ownerOf(caller)) return undefined
    if (this.#limits.clock() - stored.lastUsed >= this.#limits.idleMs || stored.role !== roleOf(caller)) {
      await repo.remove(id).catch(() => {})
      return undefined
    }
    // Served by a manager still alive: not here too (see the class comment); taken atomically, so two managers can't both.
    if (!(await this.#mayTake(stored.holder)) || !(await repo.claim(id, this.#managerId, stored.holder).catch(() => false))) return undefined
    const sdk = await loadSdk()
    const params = stored.initialize as { protocolVersion?: string }
    const logLevel = LOG_LEVELS.find((level) => level === stored.logLevel) ?? null
    let session: Session & { events: SessionEventStore }
    try {
      session = await this.#open(sdk, id, caller, stored.conversationId, params.protocolVersion, { replaying: true, logLevel })
    } catch (error) {
      await repo.release([id], this.#managerId).catch(() => {})
      throw error
    }
    try {
      // The SDK has no API to restore a session: the client's own initialize is replayed through the transport,
      // which sets the session id and the client's capabilities, info and version as the first time.
      const post = (headers: Record<string, string> = {}) =>
        new Request(request.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } })
      const answer = await session.transport.handleRequest(post(), { parsedBody: { jsonrpc: '2.0', id: 0, method: 'initialize', params: stored.initialize } })
      await answer.text()
      if (!answer.ok || session.transport.sessionId !== id) throw new Error(`replaying the session's initialize answered ${answer.status}`)
      const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' }
      await (await session.transport.handleRequest(post({ 'mcp-session-id': id }), { parsedBody: initialized })).text()
      session.events.record()
    } catch (error) {
      this.#plane.logger.warn({ err: error, mcpSession: id }, 're-opening a stored MCP session failed: the client initialises a new one')
      // Not forgotten: the failure may be this manager's alone.
      await this.#end(id, session, { forget: false })
      return undefined
    }
    // Like an initialize, re-opening a session here makes room for it.
    if (!this.#makeRoom(session.keyId)) {
      await this.#end(id, session, { forget: false })
      return 'full'
    }
    this.#sessions.set(id, session)
    return session
  }

  /** Whether this manager may serve a session `holder` served: it is this one, none, or gone by the heartbeat rules. */
  async #mayTake(holder: string | null): Promise<boolean> {
    if (holder === null || holder === this.#managerId) return true
    return !(await this.#plane.status.managerAlive(holder).catch(() => true))
  }

  #full(): Response {
    return jsonRpcError(503, -32000, `too many MCP sessions (${this.#limits.maxSessions}), all in use; retry shortly`, {
      'retry-after': String(RETRY_AFTER_S),
    })
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
      response = await session.transport.handleRequest(atNegotiatedVersion(request, session), parsedBody === undefined ? undefined : { parsedBody })
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
    if (this.#sessions.delete(id)) {
      this.#sessions.set(id, session)
      this.#writeUse(id, session)
    }
  }

  /**
   * Store the session's last use, one write at a time, when the store's is `USE_STORED_EVERY_MS` (at most) old:
   * a write per request would cost a call more than the call itself. The sweep stores sessions in use.
   */
  #writeUse(id: string, session: Session): void {
    if (session.lastUsed - session.storedUse < Math.min(USE_STORED_EVERY_MS, this.#limits.idleMs / 20)) return
    session.stale = true
    if (session.writing) return
    session.writing = true
    void (async () => {
      while (session.stale) {
        session.stale = false
        const at = session.lastUsed
        await this.#plane.people.mcpSessions.touch([id], at).catch(() => {})
        session.storedUse = at
      }
      session.writing = false
    })()
  }

  /**
   * Close expired sessions; store that the ones in use are (a long event stream), so that a peer
   * re-opening one doesn't find it expired; forget stored sessions idle past the timeout (a grace of
   * one sweep lets their managers store their use first) and events older than the timeout.
   */
  async #sweepOnce(): Promise<void> {
    for (const [id, session] of this.#sessions) if (this.#expired(session)) void this.#end(id, session)
    const repo = this.#plane.people.mcpSessions
    const now = this.#limits.clock()
    const inUse = [...this.#sessions].filter(([, session]) => session.requests > 0).map(([id]) => id)
    try {
      await repo.touch(inUse, now)
      await repo.removeIdle(now - this.#limits.idleMs - SWEEP_MS)
      await repo.pruneEvents(now - this.#limits.idleMs)
    } catch (error) {
      this.#plane.logger.warn({ err: error }, 'sweeping stored MCP sessions failed; the next sweep tries again')
    }
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

  /**
   * Close a session; unless `forget` is false, it is gone for every manager, its events too. Kept
   * (this manager stops, has no room, failed to re-open it), it is released for any manager to re-open.
   */
  async #end(id: string, session: Session, { forget = true } = {}): Promise<void> {
    if (this.#sessions.get(id) === session) this.#sessions.delete(id)
    await session.server.close().catch(() => {})
    const repo = this.#plane.people.mcpSessions
    await (forget ? repo.remove(id) : repo.release([id], this.#managerId)).catch(() => {})
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

/**
 * The request as the transport should see it: the session's negotiated version decides what its
 * streams carry (priming events, polling), so a request naming an older supported version is
 * answered as the session negotiated (the client said at initialize that it reads them).
 */
function atNegotiatedVersion(request: Request, session: Session): Request {
  const named = request.headers.get('mcp-protocol-version')
  // An unsupported version goes through as named: the transport refuses it (400).
  if (named === null || session.protocolVersion < POLLING_VERSION || !session.olderVersions.includes(named)) return request
  const headers = new Headers(request.headers)
  headers.set('mcp-protocol-version', session.protocolVersion)
  return new Request(request, { headers })
}

function jsonRpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  })
}

const ownerOf = (caller: Caller) => caller.keyId ?? caller.id
const roleOf = (caller: Caller) => (caller.kind === 'user' ? caller.role : 'agent')
