import { randomUUID } from 'node:crypto'
import { connect, type AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js'
import { databases, waitFor } from '../../test-support/databases.js'
import { openTestPlane } from '../../test-support/fixtures.js'
import { createHttpApp } from '../http/create-http-app.js'
import { McpHttpSessions, type McpSessionLimits } from './mcp-http-sessions.js'

const [sqlite] = databases
const MINUTE = 60_000

describe('MCP session caps', () => {
  const cleanup: Array<() => unknown> = []
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await Promise.resolve(step()).catch(() => {})
  })

  /** A real server on 127.0.0.1 whose /mcp keeps its sessions in `sessions`, and a key per role. */
  async function setup(limits: Partial<McpSessionLimits> = {}, { fakeSweep = false } = {}) {
    const plane = await openTestPlane(sqlite!)
    cleanup.push(() => plane.close())
    const key = async (role: 'admin' | 'viewer' | 'operator') => (await plane.people.keys.create({ name: `${role}-key`, role }, plane.now())).key
    const [admin, viewer, operator] = [await key('admin'), await key('viewer'), await key('operator')]
    if (fakeSweep) {
      // Only intervals made from here on are fake: the sweep's, not the plane's.
      vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] })
      cleanup.push(() => vi.useRealTimers())
    }
    const sessions = new McpHttpSessions(plane, limits)
    const server = serve({ fetch: createHttpApp(plane, sessions).fetch, hostname: '127.0.0.1', port: 0 })
    await new Promise((listening) => server.once('listening', listening))
    cleanup.push(
      () =>
        new Promise((closed) => {
          server.close(closed)
          void sessions.close()
          // Every answer is in: a socket the client opened and never used would hold close() open.
          if ('closeAllConnections' in server) server.closeAllConnections()
        }),
    )
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`
    const headers = (key: string, sessionId?: string) => ({
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${key}`,
      'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
      ...(sessionId && { 'mcp-session-id': sessionId }),
    })
    const post = async (key: string, message: object, sessionId?: string) => {
      const response = await fetch(url, { method: 'POST', headers: headers(key, sessionId), body: JSON.stringify({ jsonrpc: '2.0', id: 1, ...message }) })
      return { status: response.status, headers: response.headers, text: await response.text() }
    }
    const initialize = (key: string) =>
      post(key, {
        method: 'initialize',
        params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'caps-test', version: '1.0.0' } },
      })
    /** A new session of this key: its id. */
    const open = async (key: string) => {
      const answer = await initialize(key)
      expect(answer.status).toBe(200)
      return answer.headers.get('mcp-session-id')!
    }
    /** The status of a ping in that session: 200, or 404 once the session is gone. */
    const ping = async (key: string, sessionId: string) => (await post(key, { method: 'ping' }, sessionId)).status
    /** Hold the session's GET event stream open (the session is in use) until the returned function is called. */
    const listen = async (key: string, sessionId: string) => {
      const hangUp = new AbortController()
      const stream = await fetch(url, { headers: { ...headers(key, sessionId), accept: 'text/event-stream' }, signal: hangUp.signal })
      expect(stream.status).toBe(200)
      cleanup.push(() => hangUp.abort())
      return () => hangUp.abort()
    }
    return { sessions, admin, viewer, operator, post, initialize, open, ping, listen, url }
  }

  // Past the old process-wide cap of 1,000 on purpose, hence the longer timeout.
  it("caps sessions per key: a key past its cap loses its least recently used session, never another key's initialize", { timeout: 60_000 }, async () => {
    const { sessions, admin, viewer, post, initialize, open, ping } = await setup()
    const first = await open(viewer)
    const second = await open(viewer)
    for (let i = 0; i < 98; i++) await open(viewer)
    // Using the first session makes the second the least recently used one.
    expect(await ping(viewer, first)).toBe(200)
    const hundredFirst = await open(viewer)
    // A reclaimed id answers exactly as an unknown one, so the client initialises again.
    const unknown = await post(viewer, { method: 'ping' }, randomUUID())
    expect(unknown.status).toBe(404)
    expect(await post(viewer, { method: 'ping' }, second)).toMatchObject({ status: 404, text: unknown.text })
    expect(await ping(viewer, first)).toBe(200)
    expect(sessions.size).toBe(100)

    // A client leaking sessions (past the old process-wide 1,000) only replaces its own.
    let newest = hundredFirst
    for (let batch = 0; batch < 45; batch++) newest = (await Promise.all(Array.from({ length: 20 }, () => open(viewer)))).at(-1)!
    expect(sessions.size).toBe(100)
    const asAdmin = await initialize(admin)
    expect(asAdmin.status).toBe(200)
    expect(await ping(admin, asAdmin.headers.get('mcp-session-id')!)).toBe(200)
    expect(sessions.size).toBe(101)
    expect(await ping(viewer, first)).toBe(404)
    expect(await ping(viewer, hundredFirst)).toBe(404)
    expect(await ping(viewer, newest)).toBe(200)
  })

  it('reclaims the least recently used idle session of any key when the process is full, and answers 503 only when all are in use', async () => {
    const { sessions, admin, viewer, operator, initialize, open, ping, listen } = await setup({ maxSessions: 3 })
    const viewer1 = await open(viewer)
    const operator1 = await open(operator)
    const viewer2 = await open(viewer)
    expect(await ping(viewer, viewer1)).toBe(200)
    // Full: the operator's session is the least recently used one, and goes.
    const admin1 = await open(admin)
    expect(await ping(operator, operator1)).toBe(404)
    expect(await ping(viewer, viewer1)).toBe(200)
    expect(await ping(viewer, viewer2)).toBe(200)
    expect(sessions.size).toBe(3)

    // A session with an open request (here its event stream) is skipped, however long ago it began.
    await listen(viewer, viewer1)
    expect(await ping(admin, admin1)).toBe(200)
    expect(await ping(viewer, viewer2)).toBe(200)
    const operator2 = await open(operator)
    expect(await ping(admin, admin1)).toBe(404)
    expect(await ping(viewer, viewer1)).toBe(200)

    // Every session in use: nothing to reclaim, so the answer is 503 with Retry-After.
    const hangUpViewer2 = await listen(viewer, viewer2)
    await listen(operator, operator2)
    const refused = await initialize(admin)
    expect(refused.status).toBe(503)
    expect(refused.headers.get('retry-after')).toBe('5')
    expect(JSON.parse(refused.text)).toMatchObject({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringContaining('all in use') } })
    expect(sessions.size).toBe(3)
    // Once its stream ends, a session is idle again: the only idle one, so it makes room.
    hangUpViewer2()
    await waitFor(async () => (await initialize(admin)).status === 200)
    expect(await ping(viewer, viewer2)).toBe(404)
    expect(await ping(operator, operator2)).toBe(200)
  })

  it('frees a session whose client hung up in the middle of a request, so it still expires', async () => {
    let now = 1_000_000
    const { sessions, viewer, open, ping, url } = await setup({ clock: () => now })
    const sessionId = await open(viewer)
    // A request whose body never arrives in full: the client goes away with the request half sent.
    const { port } = new URL(url)
    const socket = connect(Number(port), '127.0.0.1')
    await new Promise((connected) => socket.once('connect', connected))
    const closed = new Promise((done) => socket.once('close', done))
    socket.write(
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${viewer}\r\nContent-Type: application/json\r\n` +
        `Accept: application/json, text/event-stream\r\nmcp-session-id: ${sessionId}\r\nmcp-protocol-version: ${LATEST_PROTOCOL_VERSION}\r\n` +
        'Content-Length: 1000\r\n\r\n{"jsonrpc":',
    )
    await waitFor(() => sessions.inUse === 1)
    socket.destroy()
    await closed
    await waitFor(() => sessions.inUse === 0)
    // Each look moves the clock past the idle time: a session still counted in use would answer 200 forever.
    await waitFor(async () => {
      now += 11 * MINUTE
      return (await ping(viewer, sessionId)) === 404
    })
  })

  it('closes a session 10 minutes after its last request, and not while a request on it is open', async () => {
    let now = Date.now()
    const { sessions, viewer, open, ping, listen } = await setup({ clock: () => now }, { fakeSweep: true })
    const idle = await open(viewer)
    const used = await open(viewer)
    const streaming = await open(viewer)
    const hangUp = await listen(viewer, streaming)

    now += 9 * MINUTE
    expect(await ping(viewer, used)).toBe(200)
    now += MINUTE - 1
    vi.advanceTimersByTime(MINUTE)
    expect(sessions.size).toBe(3)
    // Exactly 10 minutes unused: gone, even before the sweep comes by.
    now += 1
    expect(await ping(viewer, idle)).toBe(404)
    expect(sessions.size).toBe(2)

    // The sweep closes sessions nobody comes back to; an open event stream is use, however long.
    now += 9 * MINUTE
    vi.advanceTimersByTime(MINUTE)
    expect(sessions.size).toBe(1)
    expect(await ping(viewer, used)).toBe(404)
    expect(await ping(viewer, streaming)).toBe(200)
    // Idle from when the stream ends (seen by the server a moment after the client hangs up).
    hangUp()
    await waitFor(() => {
      now += 10 * MINUTE
      vi.advanceTimersByTime(MINUTE)
      return sessions.size === 0
    })
    expect(await ping(viewer, streaming)).toBe(404)
  })
})
