import type { AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { LATEST_PROTOCOL_VERSION, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { databases, waitFor, type TestDatabase } from '../../test-support/databases.js'
import { openTestPlane, testSkills } from '../../test-support/fixtures.js'
import { defineSkill } from '../../skill/define-skill.js'
import type { Skillplane } from '../../agents/index.js'
import { createHttpApp } from '../http/create-http-app.js'
import { openDatabase } from '../../store/index.js'
import { McpHttpSessions, type McpSessionLimits } from './mcp-http-sessions.js'

const MINUTE = 60_000

/** A skill that answers once the test lets it: its call is cut, and finishes, while the client is away. */
function gate() {
  let open!: () => void
  const opened = new Promise<void>((resolve) => (open = resolve))
  let started!: () => void
  const running = new Promise<void>((resolve) => (started = resolve))
  const skill = defineSkill({
    key: 'gated',
    description: 'Answers when the test opens the gate',
    class: 'safe',
    input: z.object({}),
    output: z.object({ passed: z.boolean() }),
    run: async () => {
      started()
      await opened
      return { passed: true }
    },
  })
  return { skill, open, running }
}

/** A fetch whose answer to the call of the tool `name` can be cut: the connection drops, as a network would drop it. */
function cuttableFetch(name: string) {
  let cut: (() => void) | undefined
  const fetchFn = async (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await fetch(url, init)
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string; params?: { name?: string } }) : undefined
    if (body?.method !== 'tools/call' || body.params?.name !== name || cut || !response.body) return response
    const reader = response.body.getReader()
    let failed!: (error: Error) => void
    const dropped = new Promise<never>((_, reject) => (failed = reject))
    cut = () => {
      failed(new Error('connection reset'))
      void reader.cancel()
    }
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const chunk = await Promise.race([reader.read(), dropped])
          if (chunk.done) controller.close()
          else controller.enqueue(chunk.value)
        } catch (error) {
          controller.error(error)
        }
      },
    })
    return new Response(stream, { status: response.status, headers: response.headers })
  }
  return { fetch: fetchFn, cut: () => cut!() }
}

/** A skill whose output holds a secret: the audit redacts it, and its stored stream event must not hold it in clear. */
const mintToken = defineSkill({
  key: 'mint_token',
  description: 'Mint a token',
  class: 'safe',
  input: z.object({}),
  output: z.object({ apiToken: z.string() }),
  run: async () => ({ apiToken: 'tok-very-secret-123' }),
})

/** The resumption tokens (event ids) a call's stream gave the client, and the first one's arrival. */
function tokenLog() {
  const tokens: string[] = []
  let got!: () => void
  const first = new Promise<void>((resolve) => (got = resolve))
  const onresumptiontoken = (token: string) => {
    tokens.push(token)
    got()
  }
  return { tokens, first, onresumptiontoken }
}

describe.each(databases)('resumable /mcp streams ($name)', (database: TestDatabase) => {
  const cleanup: Array<() => unknown> = []
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await Promise.resolve(step()).catch(() => {})
  })

  /** A manager: a plane on `where` serving /mcp on 127.0.0.1 (on `port` when given: a restart keeps its address). */
  async function manager(
    where: { dataDir: string; databaseUrl?: string },
    skills: unknown[],
    limits: Partial<McpSessionLimits> = {},
    { port = 0, fakeSweep = false } = {},
  ) {
    const plane: Skillplane = await openTestPlane(database, { skills: [...testSkills(), ...(skills as ReturnType<typeof testSkills>)] }, where)
    if (fakeSweep) {
      // Only intervals made from here on are fake: the sweep's, not the plane's.
      vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] })
      cleanup.push(() => vi.useRealTimers())
    }
    const sessions = new McpHttpSessions(plane, limits)
    const server = serve({ fetch: createHttpApp(plane, sessions).fetch, hostname: '127.0.0.1', port })
    await new Promise((listening) => server.once('listening', listening))
    let stopped = false
    const stop = async () => {
      if (stopped) return
      stopped = true
      await new Promise((closed) => {
        server.close(closed)
        void sessions.close()
        if ('closeAllConnections' in server) server.closeAllConnections()
      })
      await plane.close()
    }
    cleanup.push(stop)
    const address = server.address() as AddressInfo
    return { plane, sessions, stop, port: address.port, url: `http://127.0.0.1:${address.port}/mcp` }
  }

  const keyOf = async (plane: Skillplane, name: string) => (await plane.people.keys.create({ name, role: 'admin' }, plane.now())).key

  function connectClient(url: string, key: string, options: { fetch?: typeof fetch; maxRetries?: number } = {}) {
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
      ...(options.fetch && { fetch: options.fetch }),
      ...(options.maxRetries !== undefined && {
        reconnectionOptions: { maxRetries: options.maxRetries, initialReconnectionDelay: 100, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1.5 },
      }),
    })
    const client = new Client({ name: 'resume-test', version: '1.0.0' })
    cleanup.push(() => client.close())
    return { client, transport, connected: client.connect(transport) }
  }

  const headers = (key: string, sessionId: string, extra: Record<string, string> = {}) => ({
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    authorization: `Bearer ${key}`,
    'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
    'mcp-session-id': sessionId,
    ...extra,
  })

  /** A raw session of this key: its id. */
  async function open(url: string, key: string, protocolVersion = LATEST_PROTOCOL_VERSION): Promise<string> {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${key}` },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } },
      }),
    })
    expect(response.status).toBe(200)
    await response.text()
    return response.headers.get('mcp-session-id')!
  }

  /** A ping in a session: its status and the ids of the events its stream carried. */
  async function ping(url: string, key: string, sessionId: string, extra: Record<string, string> = {}) {
    const response = await fetch(url, {
      method: 'POST',
      headers: headers(key, sessionId, extra),
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ping' }),
    })
    const text = await response.text()
    return { status: response.status, text, eventIds: [...text.matchAll(/^id: (.+)$/gm)].map((m) => m[1]!) }
  }

  /** A GET resuming after `lastEventId`: its status and what it carried before the test hung up. */
  async function resume(url: string, key: string, sessionId: string, lastEventId: string) {
    const hangUp = new AbortController()
    cleanup.push(() => hangUp.abort())
    const response = await fetch(url, {
      headers: { ...headers(key, sessionId), accept: 'text/event-stream', 'last-event-id': lastEventId },
      signal: hangUp.signal,
    })
    if (response.headers.get('content-type')?.includes('text/event-stream')) {
      hangUp.abort()
      return { status: response.status, text: '' }
    }
    return { status: response.status, text: await response.text() }
  }

  /** A GET resuming after `lastEventId`: what it carried until `done` says enough (the stream itself stays open). */
  async function replay(url: string, key: string, sessionId: string, lastEventId: string, done: (text: string) => boolean) {
    const hangUp = new AbortController()
    cleanup.push(() => hangUp.abort())
    const response = await fetch(url, {
      headers: { ...headers(key, sessionId), accept: 'text/event-stream', 'last-event-id': lastEventId },
      signal: hangUp.signal,
    })
    expect(response.status).toBe(200)
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
    let text = ''
    while (!done(text)) text += (await reader.read()).value ?? ''
    hangUp.abort()
    return text
  }

  /** A POST of one JSON-RPC request in a session: the ids of the events its stream carried, and the text. */
  async function post(url: string, key: string, sessionId: string, message: object) {
    const response = await fetch(url, { method: 'POST', headers: headers(key, sessionId), body: JSON.stringify({ jsonrpc: '2.0', ...message }) })
    expect(response.status).toBe(200)
    const text = await response.text()
    return { text, eventIds: [...text.matchAll(/^id: (.+)$/gm)].map((m) => m[1]!) }
  }

  /** The database under the managers, as its tables hold it. */
  async function rawDb(where: { dataDir: string; databaseUrl?: string }) {
    const opened = await openDatabase(where)
    cleanup.push(() => opened.close())
    return opened.db
  }

  it('a tool call whose stream is cut mid-way gets its result by resuming with Last-Event-ID', async () => {
    const { skill, open: release, running } = gate()
    const m = await manager(await database.create(), [skill])
    const key = await keyOf(m.plane, 'resumer')
    const network = cuttableFetch('gated')
    const { client, connected } = connectClient(m.url, key, { fetch: network.fetch })
    await connected
    const { tokens, first, onresumptiontoken } = tokenLog()
    const result = client.callTool({ name: 'gated', arguments: {} }, undefined, { onresumptiontoken, timeout: 120_000 })
    await Promise.all([first, running])
    network.cut()
    release()
    expect(await result).toMatchObject({ structuredContent: { passed: true } })
    // The result came over the GET that resumed after the priming event, not over the POST cut before it.
    expect(tokens.length).toBeGreaterThanOrEqual(2)
  })

  it('a session that negotiated 2025-11-25 gets resumable streams (priming event, retry) even on a request naming an older version; an older session none', async () => {
    const m = await manager(await database.create(), [])
    const key = await keyOf(m.plane, 'versions')
    const current = await open(m.url, key, '2025-11-25')
    for (const named of ['2025-11-25', '2025-03-26']) {
      const answered = await ping(m.url, key, current, { 'mcp-protocol-version': named })
      expect(answered.status).toBe(200)
      expect(answered.text, named).toMatch(/^id: \d+\nretry: 1000\ndata: \n\n/)
    }
    // A version the server doesn't support is refused as named, never taken for the session's.
    expect((await ping(m.url, key, current, { 'mcp-protocol-version': '2020-01-01' })).status).toBe(400)
    // A client of an older version may not read an event without data: it gets the answer alone, as before.
    const older = await open(m.url, key, '2025-06-18')
    const answered = await ping(m.url, key, older, { 'mcp-protocol-version': '2025-06-18' })
    expect(answered.status).toBe(200)
    expect(answered.text).toMatch(/^event: message\nid: \d+\ndata: \{/)
  })

  it("a stale, made-up or another session's Last-Event-ID replays nothing; another key's session is unknown", async () => {
    const m = await manager(await database.create(), [], { maxEventsPerSession: 1 })
    const [alice, bob] = [await keyOf(m.plane, 'alice'), await keyOf(m.plane, 'bob')]
    const first = await open(m.url, alice)
    const second = await open(m.url, alice)
    const answered = await ping(m.url, alice, first)
    expect(answered.status).toBe(200)
    const [priming] = answered.eventIds
    expect(priming).toMatch(/^\d+$/)
    // Its own session replays the answer after the priming event.
    const own = await resume(m.url, alice, first, priming!)
    expect(own.status).toBe(200)

    // The same key's other session, a made-up id, and a malformed one: refused before any event is read.
    for (const [sessionId, lastEventId] of [
      [second, priming!],
      [second, String(Number(priming) + 1)],
      [first, '99999999'],
      [first, 'not-an-id'],
    ] as const) {
      const answer = await resume(m.url, alice, sessionId, lastEventId)
      expect(answer.status, `${sessionId === first ? 'own' : 'other'} session, ${lastEventId}`).toBe(400)
      expect(answer.text).not.toContain('"result"')
    }
    // Another key with the right session and event id: as for an unknown session.
    const foreign = await resume(m.url, bob, first, priming!)
    expect(foreign.status).toBe(404)
    expect(foreign.text).not.toContain('"result"')

    // Past the session's cap its oldest events go: their ids become stale.
    for (let i = 0; i < 55; i++) expect((await ping(m.url, alice, first)).status).toBe(200)
    await waitFor(async () => (await m.plane.people.mcpSessions.countEvents(first)) <= 1 + 100)
    expect((await resume(m.url, alice, first, priming!)).status).toBe(400)
  })

  it('a restarted manager on the same database re-opens the session: the client gets the events it missed and goes on calling', async () => {
    const where = await database.create()
    const { skill, open: release, running } = gate()
    const first = await manager(where, [skill])
    const key = await keyOf(first.plane, 'survivor')
    const network = cuttableFetch('gated')
    // No automatic reconnection: the client comes back only once the manager has restarted.
    const { client, transport, connected } = connectClient(first.url, key, { fetch: network.fetch, maxRetries: 0 })
    await connected
    const sessionId = transport.sessionId!
    expect(await client.callTool({ name: 'echo', arguments: { message: 'before' } })).toMatchObject({ structuredContent: { message: 'before' } })
    // The logging level the client sets is stored with the session.
    const logs: Array<{ level: string; data: unknown }> = []
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void logs.push(notification.params))
    await client.setLoggingLevel('debug')
    const repo = first.plane.people.mcpSessions
    await waitFor(async () => (await repo.find(sessionId))?.logLevel === 'debug')
    const { tokens, first: primed, onresumptiontoken } = tokenLog()
    const lost = client.callTool({ name: 'gated', arguments: {} }, undefined, { onresumptiontoken, timeout: 120_000 })
    lost.catch(() => {})
    await Promise.all([primed, running])
    network.cut()
    release()
    // The answer is stored while the client is away; then the manager stops.
    await waitFor(async () => {
      const stream = await repo.streamOf(sessionId, tokens.at(-1)!)
      // The answer itself: the call's last log line comes before it.
      return (
        stream !== undefined && (await repo.eventsAfter(sessionId, stream, tokens.at(-1)!)).some((event) => JSON.stringify(event.message).includes('"result"'))
      )
    })
    await first.stop()

    const restarted = await manager(where, [gate().skill], {}, { port: first.port })
    const resumed = await client.callTool({ name: 'gated', arguments: {} }, undefined, { resumptionToken: tokens.at(-1)!, timeout: 120_000 })
    expect(resumed).toMatchObject({ structuredContent: { passed: true } })
    logs.length = 0
    expect(await client.callTool({ name: 'echo', arguments: { message: 'after' } })).toMatchObject({ structuredContent: { message: 'after' } })
    // Still at the level it set (below the default, info): the call's start line too.
    expect(logs.map((line) => [line.level, (line.data as { event?: string }).event])).toEqual([
      ['debug', 'call.started'],
      ['info', 'call.finished'],
    ])
    // Still the same session and conversation.
    expect(transport.sessionId).toBe(sessionId)
    const { items } = await restarted.plane.audit.query({ skill: 'echo', limit: 10 })
    expect(items).toHaveLength(2)
    expect(new Set(items.map((row) => row.conversationId)).size).toBe(1)
  })

  it.runIf(database.name === 'postgres')(
    'one manager at a time serves a session: another answers 404 while it lives; once it stops, one of two peers re-opens it and replays what it stored',
    async () => {
      const where = await database.create()
      const [first, second, third] = [await manager(where, []), await manager(where, []), await manager(where, [])]
      const key = await keyOf(first.plane, 'roaming')
      const sessionId = await open(first.url, key)
      const answered = await ping(first.url, key, sessionId)
      const [priming] = answered.eventIds
      // Its server numbers its requests to the client as the first's does: the client initialises anew here instead.
      expect((await ping(second.url, key, sessionId)).status).toBe(404)
      expect((await resume(second.url, key, sessionId, priming!)).status).toBe(404)
      expect((await ping(first.url, key, sessionId)).status).toBe(200)
      await first.stop()

      // Two peers at once: the session is taken atomically, by one of them.
      const raced = await Promise.all([second, third].map(async (peer) => ({ peer, status: (await ping(peer.url, key, sessionId)).status })))
      expect(raced.map((r) => r.status).sort()).toEqual([200, 404])
      const holder = raced.find((r) => r.status === 200)!.peer
      const other = raced.find((r) => r.status === 404)!.peer
      expect((await ping(other.url, key, sessionId)).status).toBe(404)
      // The holder replays the answer the first manager sent, from the database.
      const text = await replay(holder.url, key, sessionId, priming!, (t) => t.includes('"result"'))
      expect(text).toContain(`id: ${answered.eventIds[1]}`)
      expect(text).toContain('"id":7')
      // And goes on answering it, for its key only.
      expect((await ping(holder.url, key, sessionId)).status).toBe(200)
      expect((await ping(holder.url, await keyOf(holder.plane, 'other'), sessionId)).status).toBe(404)
    },
  )

  it('a re-opened session answers only the key that opened it, with the role it was opened with, and only until it has been idle for idleMs', async () => {
    const where = await database.create()
    let now = Date.now()
    const clock = () => now
    const first = await manager(where, [], { clock })
    const [alice, bob] = [await keyOf(first.plane, 'alice'), await keyOf(first.plane, 'bob')]
    const sessionId = await open(first.url, alice)
    // A person whose role changes while the session is stored: it ends, as it would in memory.
    const rolf = (await first.plane.people.keys.create({ name: 'rolf' }, first.plane.now())).key
    await first.plane.people.users.setRole('rolf', 'viewer', { id: 'test', name: 'test' })
    const demoted = await open(first.url, rolf)
    await first.plane.people.users.setRole('rolf', 'operator', { id: 'test', name: 'test' })
    await first.stop()

    const second = await manager(where, [], { clock, idleMs: 10 * MINUTE })
    expect((await ping(second.url, rolf, demoted)).status).toBe(404)
    expect(await second.plane.people.mcpSessions.find(demoted)).toBeUndefined()
    // Bob holds the id but not the key: unknown to him, and still there for alice.
    expect((await ping(second.url, bob, sessionId)).status).toBe(404)
    now += 9 * MINUTE
    expect((await ping(second.url, alice, sessionId)).status).toBe(200)
    await waitFor(async () => (await second.plane.people.mcpSessions.find(sessionId))?.lastUsed === now)
    await second.stop()

    // Idle is counted from its last use, on whichever manager that was.
    const third = await manager(where, [], { clock, idleMs: 10 * MINUTE })
    now += 9 * MINUTE
    expect((await ping(third.url, alice, sessionId)).status).toBe(200)
    await waitFor(async () => (await third.plane.people.mcpSessions.find(sessionId))?.lastUsed === now)
    await third.stop()

    // Idle for the whole timeout since its last use: gone, with its events.
    const fourth = await manager(where, [], { clock, idleMs: 10 * MINUTE })
    now += 10 * MINUTE
    expect((await ping(fourth.url, alice, sessionId)).status).toBe(404)
    expect(await fourth.plane.people.mcpSessions.find(sessionId)).toBeUndefined()
    expect(await fourth.plane.people.mcpSessions.countEvents(sessionId)).toBe(0)
  })

  it("deletes a session's events with it, forgets sessions idle on any manager, and prunes events older than the idle timeout", async () => {
    const where = await database.create()
    let now = Date.now()
    const clock = () => now
    const first = await manager(where, [], { clock })
    const key = await keyOf(first.plane, 'tidy')
    const abandoned = await open(first.url, key)
    await first.stop()

    const m = await manager(where, [], { clock, idleMs: 10 * MINUTE }, { fakeSweep: true })
    const repo = m.plane.people.mcpSessions

    // DELETE: the session and its events go.
    const deleted = await open(m.url, key)
    expect(await repo.countEvents(deleted)).toBeGreaterThan(0)
    expect((await fetch(m.url, { method: 'DELETE', headers: headers(key, deleted) })).status).toBe(200)
    await waitFor(async () => (await repo.find(deleted)) === undefined && (await repo.countEvents(deleted)) === 0)

    // A session in use (its GET stream open) keeps its row, while its events older than the timeout go.
    const listening = await open(m.url, key)
    const hangUp = new AbortController()
    cleanup.push(() => hangUp.abort())
    const stream = await fetch(m.url, { headers: { ...headers(key, listening), accept: 'text/event-stream' }, signal: hangUp.signal })
    expect(stream.status).toBe(200)
    expect(await repo.countEvents(listening)).toBeGreaterThan(0)
    expect(await repo.countEvents(abandoned)).toBeGreaterThan(0)

    now += 11 * MINUTE
    vi.advanceTimersByTime(MINUTE)
    await waitFor(async () => (await repo.find(abandoned)) === undefined)
    await waitFor(async () => (await repo.countEvents(listening)) === 0)
    expect(await repo.countEvents(abandoned)).toBe(0)
    expect(await repo.find(listening)).toMatchObject({ keyId: expect.any(String), lastUsed: now })
    expect((await ping(m.url, key, listening)).status).toBe(200)
  })

  it("stores a stream's messages sealed and bound to their session: no result in clear, resuming still works, a row moved to another session replays nothing", async () => {
    const where = await database.create()
    const m = await manager(where, [mintToken])
    const key = await keyOf(m.plane, 'sealed')
    const sessionId = await open(m.url, key)
    const call = await post(m.url, key, sessionId, { id: 3, method: 'tools/call', params: { name: 'mint_token', arguments: {} } })
    expect(call.text).toContain('tok-very-secret-123')
    const answer = JSON.parse(
      call.text
        .split('\n')
        .find((line) => line.startsWith('data: {') && line.includes('"result"'))!
        .slice('data: '.length),
    ) as {
      result: { _meta: Record<string, string> }
    }
    // The audit redacts it; the stored events must not keep it either.
    expect(JSON.stringify(await m.plane.audit.tree({ callId: answer.result._meta['skillplane/callId']! }))).not.toContain('tok-very-secret-123')
    const db = await rawDb(where)
    const rows = await db.selectFrom('mcp_events').selectAll().where('session_id', '=', sessionId).where('message', 'is not', null).orderBy('id').execute()
    expect(rows.length).toBeGreaterThan(0)
    expect(JSON.stringify(rows)).not.toContain('tok-very-secret-123')
    expect(JSON.stringify(rows)).not.toContain('apiToken')
    // Resuming opens them.
    expect(await replay(m.url, key, sessionId, call.eventIds[0]!, (t) => t.includes('"id":3'))).toContain('tok-very-secret-123')

    // The same key's other session, with the first's rows copied into its stream and its own answer again after them.
    const other = await open(m.url, key)
    const pinged = await post(m.url, key, other, { id: 7, method: 'ping' })
    const own = await db
      .selectFrom('mcp_events')
      .selectAll()
      .where('session_id', '=', other)
      .where('message', 'is not', null)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow()
    for (const row of [...rows, own]) {
      await db
        .insertInto('mcp_events')
        .values({ session_id: other, stream_id: own.stream_id, message: row.message, bytes: row.bytes, created_at: Date.now() })
        .execute()
    }
    const replayed = await replay(m.url, key, other, pinged.eventIds[0]!, (t) => t.split('"id":7').length > 2)
    expect(replayed).not.toContain('tok-very-secret-123')
    expect(replayed).not.toContain('"id":3')
  })

  it('stores a message over maxEventBytes as a note saying it is missing, and keeps a session within maxBytesPerSession', async () => {
    const where = await database.create()
    const m = await manager(where, [], { maxEventBytes: 500, maxBytesPerSession: 4_000 })
    const key = await keyOf(m.plane, 'capped')
    const sessionId = await open(m.url, key)
    const long = 'x'.repeat(2_000)
    const call = await post(m.url, key, sessionId, { id: 4, method: 'tools/call', params: { name: 'echo', arguments: { message: long } } })
    // Sent live in full; replayed as an error answer to the same request.
    expect(call.text).toContain(long)
    const replayed = await replay(m.url, key, sessionId, call.eventIds[0]!, (t) => t.includes('call again'))
    expect(replayed).not.toContain(long)
    expect(replayed).toMatch(
      /"id":4,"error":\{"code":-32603,"message":"the answer \(\d+ bytes\) was too large to keep for resuming \(over 500 bytes\): call again"/,
    )

    // Many small events: the oldest go, so the session's stay within the cap (give or take a trim's step), and the newest still replay.
    let last = { text: '', eventIds: [] as string[] }
    for (let i = 0; i < 120; i++) last = await post(m.url, key, sessionId, { id: 7, method: 'ping' })
    const db = await rawDb(where)
    const stored = async () => {
      const row = await db
        .selectFrom('mcp_events')
        .select((eb) => eb.fn.sum<number | string>('bytes').as('total'))
        .where('session_id', '=', sessionId)
        .executeTakeFirstOrThrow()
      return Number(row.total)
    }
    await waitFor(async () => (await stored()) <= 4_000 * 1.1 + 200, 10_000)
    expect(await replay(m.url, key, sessionId, last.eventIds[0]!, (t) => t.includes('"id":7'))).toContain('"result"')
  })
})
