import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import { WebSocketServer, type WebSocket } from 'ws'
import type { Logger } from 'pino'
import type { EdgeRepository, EdgeRow } from '../../store/index.js'
import { EdgeConnection } from './edge-connection.js'
import { edgeIdOf, tokenMatches } from './edge-token.js'
import { CLOSE, MAX_FRAME_BYTES, helloMessage, parseFrame, type HelloMessage, type OfferedSkill } from './protocol.js'

const HELLO_TIMEOUT_MS = 10_000

export interface EdgeHubOptions {
  repo: EdgeRepository
  managerId: string
  logger: Logger
  heartbeatMs: number
  maxInFlight: number
  /** Why this manager won't take a skill from an edge (a key another source holds), or null. */
  refuse(skill: OfferedSkill): string | null
  /** An edge connected or disconnected here. */
  onChange(): void
  /** Whether another manager is alive (one that holds an edge's connection). */
  managerAlive(managerId: string): Promise<boolean>
  /** A second connection with an edge's token, refused while the first is online; recorded. */
  onDuplicate(row: EdgeRow, detail: { holder: string | null; remoteAddress: string | null }): void
  now(): string
  /** The time tokens' lifetimes are measured against (ISO). */
  tokenNow(): string
}

/**
 * The manager's end of the tunnels: it authenticates an edge's WebSocket upgrade by its token,
 * takes its hello (identity checked against the token), keeps the connection, and pings it.
 */
export class EdgeHub {
  readonly #o: EdgeHubOptions
  readonly #wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES })
  readonly #connections = new Map<string, EdgeConnection>()
  // The token each connection authenticated with: a rotation or an expiry ends it.
  readonly #credentials = new WeakMap<EdgeConnection, { tokenHash: string; expiresAt: string | null }>()
  readonly #timer: NodeJS.Timeout
  #closing = false

  constructor(options: EdgeHubOptions) {
    this.#o = options
    this.#timer = setInterval(() => this.#beat(), options.heartbeatMs)
    this.#timer.unref()
  }

  /** The edge's connection on this manager, if it holds one. */
  connection(edgeId: string): EdgeConnection | undefined {
    return this.#connections.get(edgeId)
  }

  get connectedIds(): string[] {
    return [...this.#connections.keys()]
  }

  /** Close an edge's connection here (its token was revoked). */
  disconnect(edgeId: string, code: number, reason: string): void {
    this.#connections.get(edgeId)?.close(code, reason)
  }

  /** Close each connection here whose edge's token is no longer the one it authenticated with (rotated elsewhere). */
  disconnectRotated(tokenHashOf: (edgeId: string) => string | undefined): void {
    for (const [id, connection] of this.#connections) {
      const current = tokenHashOf(id)
      if (current !== undefined && current !== this.#credentials.get(connection)?.tokenHash)
        connection.close(CLOSE.revoked, "this edge's token was rotated: start it with the new token")
    }
  }

  /** An HTTP upgrade request: the tunnel of an edge with a valid token, anything else answered and closed. */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => {})
    if (this.#closing) return reject(socket, 503, 'skillplane is shutting down')
    const header = request.headers.authorization ?? ''
    const token = header.startsWith('Bearer ') ? header.slice(7).trim() : ''
    const edgeId = edgeIdOf(token)
    if (!edgeId) return reject(socket, 401, 'an edge authenticates with its token (from edges enroll or edges rotate): Authorization: Bearer spe_…')
    this.#o.repo
      .get(edgeId)
      .then(
        (row) => {
          if (!row || !tokenMatches(token, row.token_hash)) return reject(socket, 401, 'unknown edge token')
          if (row.revoked_at !== null) return reject(socket, 401, `edge "${row.name}" was revoked at ${row.revoked_at}`)
          if (expired(row, this.#o.tokenNow()))
            return reject(
              socket,
              401,
              `the token of edge "${row.name}" expired at ${row.token_expires_at}: an admin issues a new one with skillplane edges rotate ${row.name}`,
            )
          return this.#holder(row).then((holder) => {
            if (holder === null) return this.#wss.handleUpgrade(request, socket, head, (ws) => this.#greet(ws, row, socket))
            this.#o.onDuplicate(row, { holder, remoteAddress: request.socket.remoteAddress ?? null })
            reject(
              socket,
              409,
              `edge "${row.name}" is connected already (to manager ${holder}): one connection per token; stop the other edge process, or wait for its connection to be seen gone`,
            )
          })
        },
        (error: unknown) => {
          this.#o.logger.error({ err: error }, 'edge authentication failed: the database did not answer')
          reject(socket, 503, 'the database is unavailable')
        },
      )
      .catch((error: unknown) => {
        this.#o.logger.error({ err: error }, 'edge authentication failed')
        reject(socket, 503, 'the manager could not take the connection')
      })
  }

  async close(): Promise<void> {
    this.#closing = true
    clearInterval(this.#timer)
    for (const connection of this.#connections.values()) connection.close(CLOSE.goingAway, 'the manager is shutting down')
    await Promise.all(
      [...this.#connections.values()].map((c) => this.#o.repo.disconnected(c.edgeId, this.#o.managerId, c.connectedAt, this.#o.now()).catch(() => {})),
    )
    this.#connections.clear()
    this.#wss.close()
  }

  // The first message must be the hello, in time; everything it claims about identity must match the token.
  #greet(ws: WebSocket, row: EdgeRow, raw: Duplex): void {
    const { logger } = this.#o
    const timer = setTimeout(() => ws.close(CLOSE.malformed, 'no hello within 10 s'), HELLO_TIMEOUT_MS)
    ws.once('message', (data, isBinary) => {
      clearTimeout(timer)
      const parsed = isBinary ? ({ ok: false, reason: 'a binary frame' } as const) : parseFrame(helloMessage, data)
      if (!parsed.ok) {
        logger.warn({ edge: row.name, reason: parsed.reason }, 'edge hello refused')
        return ws.close(CLOSE.malformed, `protocol error: ${parsed.reason}`.slice(0, 120))
      }
      const hello = parsed.value
      const claim = identityProblem(hello, row)
      if (claim) {
        logger.warn({ edge: row.name, claim }, 'edge claimed another identity; refused')
        return ws.close(CLOSE.revoked, claim.slice(0, 120))
      }
      this.#accept(ws, row, hello, raw).catch((error: unknown) => {
        logger.error({ err: error, edge: row.name }, 'recording an edge connection failed')
        ws.close(1011, 'the manager could not record the connection')
      })
    })
  }

  async #accept(ws: WebSocket, row: EdgeRow, hello: HelloMessage, raw: Duplex): Promise<void> {
    const { repo, managerId, logger } = this.#o
    const now = this.#o.now()
    const refused = hello.skills.flatMap((skill) => {
      const reason = this.#o.refuse(skill)
      return reason ? [{ key: skill.key, reason }] : []
    })
    const offered = hello.skills.filter((s) => !refused.some((r) => r.key === s.key))
    // Two connections that passed the upgrade at the same moment: the first welcomed keeps the edge.
    if (this.#connections.has(row.id)) {
      this.#o.onDuplicate(row, { holder: managerId, remoteAddress: null })
      return ws.close(CLOSE.duplicate, `edge "${row.name}" is connected already: one connection per token`)
    }
    const connection = new EdgeConnection(ws, row.id, row.name, now, {
      logger,
      maxInFlight: this.#o.maxInFlight,
      raw,
      onClose: (closed, reason) => {
        if (this.#connections.get(closed.edgeId) === closed) this.#connections.delete(closed.edgeId)
        logger.info({ edge: closed.name, reason }, 'edge disconnected')
        repo
          .disconnected(closed.edgeId, managerId, closed.connectedAt, this.#o.now())
          .catch((error: unknown) => logger.warn({ err: error }, 'recording an edge disconnection failed'))
          .finally(() => this.#o.onChange())
      },
    })
    this.#connections.set(row.id, connection)
    this.#credentials.set(connection, { tokenHash: row.token_hash, expiresAt: row.token_expires_at })
    const took = await repo.connected(
      row.id,
      {
        hostname: hello.hostname,
        os: hello.os,
        arch: hello.arch,
        version: hello.version,
        skills: JSON.stringify(offered),
        manager_id: managerId,
        connected_at: now,
        last_seen_at: now,
      },
      row,
    )
    // Another manager let the same token in at the same moment and recorded its connection first: it keeps the edge.
    if (!took) {
      if (this.#connections.get(row.id) === connection) this.#connections.delete(row.id)
      const now = await repo.get(row.id)
      // Revoked meanwhile: that, not a second connection, is why it was not taken.
      if (!now || now.revoked_at !== null) return connection.close(CLOSE.revoked, 'this edge was revoked')
      const holder = now.manager_id
      this.#o.onDuplicate(row, { holder, remoteAddress: null })
      return connection.close(CLOSE.duplicate, `edge "${row.name}" is connected already: one connection per token`)
    }
    ws.send(JSON.stringify({ type: 'welcome', edgeId: row.id, name: row.name, managerId, heartbeatMs: this.#o.heartbeatMs, refused }))
    logger.info({ edge: row.name, host: hello.hostname, skills: offered.length, refused: refused.length }, 'edge connected')
    for (const r of refused) logger.warn({ edge: row.name, skill: r.key }, `edge skill refused: ${r.reason}`)
    this.#o.onChange()
  }

  // The manager holding a live connection of this edge (this one or another that is alive), or null.
  async #holder(row: EdgeRow): Promise<string | null> {
    if (this.#connections.has(row.id)) return this.#o.managerId
    const holder = row.manager_id
    if (!holder || holder === this.#o.managerId) return null
    const seen = row.last_seen_at ? Date.parse(row.last_seen_at) : 0
    if (Date.now() - seen >= this.#o.heartbeatMs * 3 + 5_000) return null
    return (await this.#o.managerAlive(holder).catch(() => true)) ? holder : null
  }

  #beat(): void {
    const now = this.#o.tokenNow()
    for (const connection of this.#connections.values()) {
      const credential = this.#credentials.get(connection)
      if (credential?.expiresAt && credential.expiresAt <= now) connection.close(CLOSE.revoked, `this edge's token expired at ${credential.expiresAt}`)
      else connection.heartbeat()
    }
    this.#o.repo
      .seen(this.connectedIds, this.#o.managerId, this.#o.now())
      .catch((error: unknown) => this.#o.logger.warn({ err: error }, 'recording edge heartbeats failed'))
  }
}

function expired(row: EdgeRow, now: string): boolean {
  return row.token_expires_at !== null && row.token_expires_at <= now
}

function identityProblem(hello: HelloMessage, row: EdgeRow): string | null {
  if (hello.edgeId !== undefined && hello.edgeId !== row.id) return `this token belongs to edge ${row.id} ("${row.name}"), not ${hello.edgeId}`
  if (hello.name !== undefined && hello.name !== row.name) return `this token belongs to edge "${row.name}", not "${hello.name}"`
  return null
}

function reject(socket: Duplex, status: number, message: string): void {
  const reason = { 401: 'Unauthorized', 404: 'Not Found', 409: 'Conflict', 503: 'Service Unavailable' }[status] ?? 'Error'
  const code = { 401: 'unauthorized', 409: 'conflict' }[status] ?? 'unavailable'
  const body = JSON.stringify({ ok: false, error: { code, message } })
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`)
}
