import { existsSync, writeFileSync, chmodSync } from 'node:fs'
import { once } from 'node:events'
import { createServer, type AddressInfo } from 'node:net'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { callsTool, says, scripted } from '../../src/test-support/mock-model.js'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { createSkillplane } from '../../src/agents/index.js'
import { startHttpServer } from '../../src/surfaces/http/index.js'
import { silentLogger } from '../../src/test-support/fixtures.js'
import { workSteps } from '../../src/test-support/run-steps.js'
import { cli, enrollAndStart, secretPacks, slowPack, startEdge, startManager, tempDir, waitFor, type Manager } from './edge-harness.js'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** A raw tunnel client: what a hand-made (or hostile) edge can send. */
function rawEdge(manager: Manager, token: string): Promise<{ ws: WebSocket; closed: Promise<{ code: number; reason: string }> }> {
  const ws = new WebSocket(`${manager.url.replace('http', 'ws')}/api/edges/connect`, { headers: { authorization: `Bearer ${token}` } })
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })))
  return new Promise((resolve, reject) => {
    ws.on('open', () => resolve({ ws, closed }))
    ws.on('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)))
    ws.on('error', reject)
  })
}

const hello = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    type: 'hello',
    protocol: 1,
    hostname: 'raw',
    os: 'test',
    arch: 'x64',
    version: '0',
    labels: {},
    skills: [{ key: 'raw_noop', description: 'Does nothing', class: 'safe', inputSchema: { type: 'object' } }],
    ...extra,
  })

describe('edges', () => {
  it('enrolls an edge, which dials in and runs host skills called over HTTP, MCP and the CLI, audited with the edge', async () => {
    const location = { dataDir: tempDir() }
    const manager = await startManager(location)
    const viewer = (await manager.plane.people.keys.create({ name: 'v', role: 'viewer' }, manager.plane.now())).key
    expect((await manager.api('POST', '/api/edges', { name: 'web-1' }, viewer)).status).toBe(403)
    expect(await manager.api('POST', '/api/edges', { name: 'Web 1!' })).toMatchObject({ status: 400, body: { error: { code: 'invalid_input' } } })
    expect(await manager.api('POST', '/api/edges', { name: 'web-1', labels: { env: 'prod prod' } })).toMatchObject({ status: 400 })

    const readable = tempDir('skillplane-edge-read-')
    writeFileSync(join(readable, 'app.log'), 'one\ntwo\nthree\n')
    const pack = slowPack()
    const { id } = await enrollAndStart(manager, 'web-1', {
      labels: { env: 'prod' },
      args: ['--allow-read', readable, '--packs', pack.dir, '--label', 'team=ops'],
    })
    expect(await manager.api('POST', '/api/edges', { name: 'web-1' })).toMatchObject({ status: 409, body: { error: { code: 'conflict' } } })

    const listed = await manager.api('GET', '/api/edges')
    const row = listed.body.edges.find((e: { name: string }) => e.name === 'web-1')
    expect(row).toMatchObject({
      id,
      online: true,
      labels: { env: 'prod' },
      managerId: manager.plane.status.managerId,
      os: expect.any(String),
      version: expect.any(String),
    })
    expect(row.skills.map((s: { key: string }) => s.key)).toEqual(expect.arrayContaining(['probe_tcp', 'tail_file', 'host_load', 'restart_service', 'slow_op']))
    expect(row.skills.map((s: { key: string }) => s.key)).not.toContain('run_command')
    expect((await manager.api('GET', '/api/edges/web-1')).body.id).toBe(id)
    expect((await manager.api('GET', '/api/skills/probe_tcp')).body).toMatchObject({ scope: 'host', source: 'edge', available: true })

    const port = Number(new URL(manager.url).port)
    expect(await manager.invoke('probe_tcp', { input: { host: '127.0.0.1', port }, edgeId: 'web-1' })).toMatchObject({
      status: 200,
      body: { ok: true, data: { open: true } },
    })
    expect(await manager.invoke('tail_file', { input: { path: join(readable, 'app.log'), lines: 2 }, edgeId: id })).toMatchObject({
      body: { ok: true, data: { lines: ['two', 'three'] } },
    })
    expect(await manager.invoke('tail_file', { input: { path: '/etc/passwd' }, edgeId: 'web-1' })).toMatchObject({ body: { ok: false } })
    expect(await manager.invoke('slow_op', { input: { ms: 10 }, edgeId: 'web-1' })).toMatchObject({ body: { ok: true, data: { slept: 10 } } })
    // Naming no edge, an unknown one, or giving an edge to a manager skill are the caller's mistakes.
    expect(await manager.invoke('probe_tcp', { input: { host: '127.0.0.1', port } })).toMatchObject({
      status: 400,
      body: { error: { message: 'skill "probe_tcp" runs on an edge: name one with edgeId (edges offering it: web-1)' } },
    })
    expect(await manager.invoke('probe_tcp', { input: { host: '127.0.0.1', port }, edgeId: 'nope' })).toMatchObject({ status: 404 })
    expect(await manager.invoke('probe_tcp', { input: { host: '127.0.0.1', port: 'x' }, edgeId: 'web-1' })).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_input' } },
    })

    // MCP: the tool takes edge_id, listing the edges that offer it.
    const client = new Client({ name: 'test', version: '1' })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${manager.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${manager.adminKey}` } } }),
    )
    const tool = (await client.listTools()).tools.find((t) => t.name === 'probe_tcp')!
    expect(tool.inputSchema.properties!.edge_id).toMatchObject({ enum: ['web-1'] })
    expect(tool.inputSchema.required).toContain('edge_id')
    const called = await client.callTool({ name: 'probe_tcp', arguments: { host: '127.0.0.1', port, edge_id: 'web-1' } })
    expect(called.isError).toBeFalsy()
    await client.close()

    // The CLI is another process: its call is relayed through the database to the manager holding the edge.
    const viaCli = await cli(location, ['invoke', 'probe_tcp', '--edge', 'web-1', '--input', JSON.stringify({ host: '127.0.0.1', port })])
    expect(viaCli.stderr).toBe('')
    expect(JSON.parse(viaCli.stdout)).toMatchObject({ ok: true, data: { open: true } })

    const audited = await manager.api('GET', '/api/audit?edge=web-1&limit=50')
    expect(audited.body.items.length).toBeGreaterThanOrEqual(6)
    expect(audited.body.items.every((e: { edgeId: string; edgeName: string }) => e.edgeId === id && e.edgeName === 'web-1')).toBe(true)
    expect(JSON.parse((await cli(location, ['edges', 'list', '--json'])).stdout).edges[0]).toMatchObject({ name: 'web-1', online: true })
  })

  it('carries the deadline and cancellation to the edge, which stops the work there', async () => {
    const manager = await startManager({ dataDir: tempDir() })
    const pack = slowPack(1)
    await enrollAndStart(manager, 'slow-1', { args: ['--packs', pack.dir] })
    const timedOut = await manager.invoke('slow_op', { input: { ms: 3_000, marker: 'deadline' }, edgeId: 'slow-1' })
    expect(timedOut).toMatchObject({ status: 504, body: { error: { code: 'timeout' } } })

    const controller = new AbortController()
    const pending = manager.invoke('slow_op', { input: { ms: 900, marker: 'cancelled' }, edgeId: 'slow-1' }, { signal: controller.signal }).catch(() => null)
    await sleep(300)
    controller.abort()
    await pending
    await waitFor(async () => (await manager.plane.audit.query({ skill: 'slow_op', status: 'interrupted', limit: 5 })).items.length === 1)
    // Past both calls' sleep: neither side effect happened, because the edge killed the pack.
    await sleep(3_200)
    expect(existsSync(join(pack.trace, 'deadline'))).toBe(false)
    expect(existsSync(join(pack.trace, 'cancelled'))).toBe(false)
  })

  it('ends a call whose edge is killed mid-call edge_unavailable with a final audit row; an offline edge says when it was last seen', async () => {
    const manager = await startManager({ dataDir: tempDir() })
    const pack = slowPack()
    const { edge } = await enrollAndStart(manager, 'doomed', { args: ['--packs', pack.dir] })
    const call = manager.invoke('slow_op', { input: { ms: 5_000 }, edgeId: 'doomed' })
    await sleep(500)
    edge.child.kill('SIGKILL')
    const ended = await call
    expect(ended).toMatchObject({ status: 502, body: { ok: false, error: { code: 'edge_unavailable' } } })
    expect(ended.body.error.message).toMatch(/^edge "doomed" disconnected mid-call \(.*\): the outcome on the edge is unknown$/)
    const row = await manager.plane.audit.get(ended.body.callId)
    expect(row).toMatchObject({ status: 'error', error: { code: 'edge_unavailable' }, edgeName: 'doomed', finishedAt: expect.any(String) })
    await waitFor(() => manager.plane.sources.edges.get('doomed')?.online === false)
    const offline = await manager.invoke('slow_op', { input: { ms: 1 }, edgeId: 'doomed' })
    expect(offline).toMatchObject({ status: 502, body: { error: { code: 'edge_unavailable' } } })
    expect(offline.body.error.message).toMatch(/^edge "doomed" is offline \(last seen \d{4}-\d\d-\d\dT/)
  })

  it('reconnects an edge after its manager restarts, and calls work again', async () => {
    const location = { dataDir: tempDir() }
    const first = await startManager(location)
    const port = Number(new URL(first.url).port)
    const { edge } = await enrollAndStart(first, 'steady')
    await first.close()
    const second = await startManager(location, {}, port)
    await waitFor(() => second.plane.sources.edges.get('steady')?.online === true)
    expect(await second.invoke('host_load', { input: {}, edgeId: 'steady' })).toMatchObject({ body: { ok: true, data: { cpus: expect.any(Number) } } })
    expect(edge.child.exitCode).toBeNull()
  })

  it('refuses a revoked token at once, a forged identity and a wrong secret', async () => {
    const manager = await startManager({ dataDir: tempDir() })
    const { token, edge, id } = await enrollAndStart(manager, 'gone')
    const other = await manager.api('POST', '/api/edges', { name: 'other' })
    expect((await manager.api('DELETE', '/api/edges/gone')).body).toMatchObject({ id, revokedAt: expect.any(String) })
    expect(await edge.exited).toBe(3)
    expect(edge.output()).toContain('this edge was revoked')
    expect((await manager.api('DELETE', '/api/edges/gone')).status).toBe(404)
    const again = startEdge([manager.url], token)
    expect(await again.exited).toBe(3)
    expect(again.output()).toMatch(/refused this edge's token: edge "gone" was revoked at/)

    // The other edge's token, claiming to be someone else, is closed before it is welcomed.
    const forged = await rawEdge(manager, other.body.token)
    forged.ws.send(hello({ edgeId: id }))
    expect(await forged.closed).toMatchObject({ code: 4401, reason: expect.stringContaining(`this token belongs to edge ${other.body.edge.id}`) })
    const renamed = await rawEdge(manager, other.body.token)
    renamed.ws.send(hello({ name: 'gone' }))
    expect((await renamed.closed).code).toBe(4401)
    const wrongSecret = other.body.token.slice(0, -4) + 'AAAA'
    await expect(rawEdge(manager, wrongSecret)).rejects.toThrow('HTTP 401')
    await expect(rawEdge(manager, 'sp_not_an_edge_token')).rejects.toThrow('HTTP 401')
    expect(manager.plane.sources.edges.get('other')?.online).toBe(false)
  })

  it("rotates an edge's token: the old one stops at once and its connection closes; a second connection with a live token is refused and recorded", async () => {
    const manager = await startManager({ dataDir: tempDir() })
    const { token: first, edge } = await enrollAndStart(manager, 'turning')

    // While it is online, the same token can't open a second connection (on this manager or another).
    await expect(rawEdge(manager, first)).rejects.toThrow('HTTP 409')
    const refusedEvents = await manager.api('GET', '/api/audit/events?kind=edge.connection_refused')
    expect(refusedEvents.body.items).toMatchObject([
      {
        kind: 'edge.connection_refused',
        subject: expect.stringMatching(/^edge:/),
        details: { name: 'turning', holder: manager.plane.status.managerId, remoteAddress: '127.0.0.1' },
      },
    ])
    expect(manager.plane.sources.edges.get('turning')?.online).toBe(true)
    expect(edge.child.exitCode).toBeNull()

    expect(await manager.api('POST', '/api/edges/turning/rotate', { expiresIn: 'soon' })).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_input', message: 'expiresIn: "soon" is not a lifetime: hours or days, e.g. 12h or 90d (1h to 3650d)' } },
    })
    expect(await manager.api('POST', '/api/edges/nobody/rotate', {})).toMatchObject({ status: 404, body: { error: { message: 'no enrolled edge "nobody"' } } })
    const rotated = await manager.api('POST', '/api/edges/turning/rotate', { expiresIn: '30d' })
    expect(rotated).toMatchObject({
      status: 200,
      body: { edge: { name: 'turning', tokenExpiresAt: expect.any(String) }, token: expect.stringMatching(/^spe_/) },
    })
    const second: string = rotated.body.token
    expect(second).not.toBe(first)
    expect(Date.parse(rotated.body.edge.tokenExpiresAt) - Date.now()).toBeGreaterThan(29 * 24 * 3600 * 1000)
    // The edge using the old token is told and stops (exit 3: a supervisor must not restart it as is).
    expect(await edge.exited).toBe(3)
    expect(edge.output()).toContain("this edge's token was rotated: start it with the new token")
    await expect(rawEdge(manager, first)).rejects.toThrow('HTTP 401')
    expect((await manager.api('GET', '/api/audit/events?kind=edge.rotated')).body.items).toMatchObject([{ details: { name: 'turning' } }])

    const again = startEdge([manager.url], second)
    await waitFor(() => manager.plane.sources.edges.get('turning')?.online === true, 15_000)
    expect(await manager.invoke('host_load', { input: {}, edgeId: 'turning' })).toMatchObject({ status: 200, body: { ok: true } })
    // Rotated from another process (the CLI) on the same store: the running manager closes the connection too.
    const fromCli = await cli({ dataDir: manager.plane.status.dataDir }, ['edges', 'rotate', 'turning'])
    expect(fromCli.stdout).toMatch(/^rotated the token of edge "turning" \(id \w{26}\): the old token no longer works\ntoken \(shown once\): spe_\S+\n/)
    expect(await again.exited).toBe(3)
    expect(manager.plane.sources.edges.get('turning')?.tokenExpiresAt).toBeNull()
  })

  it('refuses an expired token, and closes the connection of an edge whose token expires while it is online', async () => {
    let offsetMs = 0
    const location = { dataDir: tempDir() }
    const plane = await createSkillplane({
      config: { edges: { heartbeatMs: 500 } },
      ...location,
      logger: silentLogger(),
      clock: () => new Date(Date.now() + offsetMs),
    })
    const server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    try {
      expect(await plane.sources.edges.enroll({ name: 'brief', expiresIn: '0h' }, { id: 'a', name: 'admin' })).toMatchObject({
        ok: false,
        code: 'invalid_input',
      })
      const enrolled = await plane.sources.edges.enroll({ name: 'brief', expiresIn: '2h' }, { id: 'a', name: 'admin' })
      if (!enrolled.ok) throw new Error(enrolled.message)
      expect(Date.parse(enrolled.edge.tokenExpiresAt!) - Date.now()).toBeGreaterThan(2 * 3600 * 1000 - 60_000)
      const edge = startEdge([server.url], enrolled.token)
      await waitFor(() => plane.sources.edges.get('brief')?.online === true, 15_000)
      expect(await plane.sources.edges.tokenValid(enrolled.token)).toBe(true)
      offsetMs = 3 * 3600 * 1000
      expect(await edge.exited).toBe(3)
      expect(edge.output()).toContain(`this edge's token expired at ${enrolled.edge.tokenExpiresAt}`)
      expect(await plane.sources.edges.tokenValid(enrolled.token)).toBe(false)
      const late = startEdge([server.url], enrolled.token)
      expect(await late.exited).toBe(3)
      expect(late.output()).toContain(
        `the token of edge "brief" expired at ${enrolled.edge.tokenExpiresAt}: an admin issues a new one with skillplane edges rotate brief`,
      )
    } finally {
      await server.close()
      await plane.close()
    }
  })

  it('closes a connection that sends a malformed or oversized frame, failing its calls cleanly, and keeps serving', async () => {
    const manager = await startManager({ dataDir: tempDir() })
    const { token } = (await manager.api('POST', '/api/edges', { name: 'raw' })).body
    const own = (await manager.api('GET', '/api/health')).body.skills
    expect(own).toBeGreaterThan(0)
    const edge = await rawEdge(manager, token)
    edge.ws.send(hello())
    await waitFor(() => manager.plane.sources.edges.get('raw')?.online === true)
    // Health counts the manager's own skills, as the serve banner does: not those the edge offers.
    expect(manager.plane.skills.get('raw_noop')).toBeDefined()
    expect((await manager.api('GET', '/api/health')).body.skills).toBe(own)
    const calls: string[] = []
    edge.ws.on('message', (data) => calls.push(String(data)))
    const pending = manager.invoke('raw_noop', { input: {}, edgeId: 'raw' })
    await waitFor(() => calls.some((c) => c.includes('"type":"call"')))
    edge.ws.send('{"type":"result","id":42}')
    expect(await edge.closed).toMatchObject({ code: 4400, reason: expect.stringContaining('protocol error: a malformed "result" message') })
    expect(await pending).toMatchObject({ status: 502, body: { error: { code: 'edge_unavailable' } } })

    const big = await rawEdge(manager, token)
    big.ws.send(hello())
    await waitFor(() => manager.plane.sources.edges.get('raw')?.online === true)
    big.ws.send('x'.repeat(5 * 1024 * 1024))
    expect((await big.closed).code).toBe(1009)
    // One connection per token: the next is let in once the manager has dropped this one.
    await waitFor(() => manager.plane.sources.edges.get('raw')?.online === false)
    const garbage = await rawEdge(manager, token)
    garbage.ws.send('not json at all')
    expect((await garbage.closed).code).toBe(4400)
    expect((await manager.api('GET', '/api/health')).status).toBe(200)
  })

  it("answers timeout, not executor_error, when the edge stops a call at its deadline before the manager's own timer fires", async () => {
    const manager = await startManager({ dataDir: tempDir() })
    const { token } = (await manager.api('POST', '/api/edges', { name: 'raw' })).body
    const edge = await rawEdge(manager, token)
    edge.ws.send(hello())
    await waitFor(() => manager.plane.sources.edges.get('raw')?.online === true)
    // The edge's deadline is the call's own; on a loaded manager the edge's answer can arrive first.
    edge.ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as { type: string; id: string; timeoutMs: number }
      if (message.type === 'call')
        edge.ws.send(
          JSON.stringify({
            type: 'result',
            id: message.id,
            ok: false,
            error: { code: 'timeout', message: `the call exceeded its ${message.timeoutMs} ms deadline on the edge` },
          }),
        )
    })
    const answered = await manager.invoke('raw_noop', { input: {}, edgeId: 'raw' })
    expect(answered).toMatchObject({ status: 504, body: { error: { code: 'timeout', message: expect.stringContaining('ms deadline on the edge') } } })
    expect(await manager.plane.audit.get(answered.body.callId)).toMatchObject({ status: 'timeout', error: { code: 'timeout' } })
  })

  it('asks for approval of restart_service on env=prod edges only, and binds the approval to that edge', async () => {
    const manager = await startManager({ dataDir: tempDir() })
    // A systemctl that records its arguments: restart_service runs it on the edge.
    const bin = tempDir('skillplane-edge-bin-')
    const log = join(bin, 'calls')
    writeFileSync(join(bin, 'systemctl'), `#!/bin/sh\necho "$@" >> ${log}\n[ "$2" = show ] || [ "$1" = show ] && echo active\nexit 0\n`)
    chmodSync(join(bin, 'systemctl'), 0o755)
    const env = { PATH: `${bin}:${process.env.PATH}` }
    await enrollAndStart(manager, 'prod-1', { labels: { env: 'prod' }, env })
    await enrollAndStart(manager, 'prod-2', { labels: { env: 'prod' }, env })
    await enrollAndStart(manager, 'dev-1', { labels: { env: 'dev' }, env })
    expect(await manager.api('PUT', '/api/policies', { skill: 'restart_service', level: 'edge', subject: 'env=prod', decision: 'ASK' })).toMatchObject({
      status: 200,
    })
    expect(await manager.api('PUT', '/api/policies', { skill: 'restart_service', level: 'edge', subject: 'bad subject', decision: 'ASK' })).toMatchObject({
      status: 400,
    })
    const operator = (await manager.plane.people.keys.create({ name: 'op', role: 'operator' }, manager.plane.now())).key
    const approver = (await manager.plane.people.keys.create({ name: 'boss', role: 'admin' }, manager.plane.now())).key

    expect(await manager.invoke('restart_service', { input: { unit: 'nginx.service' }, edgeId: 'dev-1' }, { key: operator })).toMatchObject({
      status: 200,
      body: { ok: true },
    })
    const asked = await manager.invoke('restart_service', { input: { unit: 'nginx.service' }, edgeId: 'prod-1' }, { key: operator })
    expect(asked).toMatchObject({ status: 202, body: { error: { code: 'approval_required' } } })
    const approvalId = asked.body.error.details.approvalId
    expect((await manager.api('GET', `/api/approvals/${approvalId}`)).body).toMatchObject({ edge: { name: 'prod-1' }, input: { unit: 'nginx.service' } })
    expect(await manager.api('POST', `/api/approvals/${approvalId}/approve`, {}, approver)).toMatchObject({ status: 200 })
    // The approval holds for the edge it was asked for: the same input on another edge is another call.
    expect(await manager.invoke('restart_service', { input: { unit: 'nginx.service' }, edgeId: 'prod-2', approvalId }, { key: operator })).toMatchObject({
      body: { ok: false, error: { code: 'denied', message: expect.stringContaining('other arguments') } },
    })
    expect(await manager.invoke('restart_service', { input: { unit: 'nginx.service' }, edgeId: 'prod-1', approvalId }, { key: operator })).toMatchObject({
      status: 200,
      body: { ok: true, data: { unit: 'nginx.service' } },
    })
  })
  it('shows the class an edge declares; an admin raises it through the catalog, the gate follows, and a reconnect keeps it', async () => {
    const manager = await startManager({ dataDir: tempDir() })
    const pack = slowPack()
    const { token, edge } = await enrollAndStart(manager, 'pack-1', { args: ['--packs', pack.dir] })
    const operator = (await manager.plane.people.keys.create({ name: 'op', role: 'operator' }, manager.plane.now())).key
    const call = (key = operator) => manager.invoke('slow_op', { input: { ms: 1 }, edgeId: 'pack-1' }, { key })
    await waitFor(async () => (await manager.api('GET', '/api/skills/slow_op')).status === 200)
    expect((await manager.api('GET', '/api/skills/slow_op')).body).toMatchObject({ class: 'safe', declaredClass: 'safe', overrides: { class: false } })
    expect(await call()).toMatchObject({ status: 200, body: { ok: true } })

    expect(await manager.api('PATCH', '/api/skills/slow_op', { class: 'dangerous' })).toMatchObject({
      status: 200,
      body: { class: 'dangerous', declaredClass: 'safe', overrides: { class: true } },
    })
    // Operators may not call a dangerous skill at all; an admin's call needs two approvers.
    expect(await call()).toMatchObject({ status: 403, body: { error: { code: 'denied', message: expect.stringContaining('dangerous') } } })
    expect(await call(manager.adminKey)).toMatchObject({ status: 202, body: { error: { code: 'approval_required' } } })
    // The declared class is a floor, and a class must be one of the three.
    expect(await manager.api('PATCH', '/api/skills/restart_service', { class: 'safe' })).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_input', message: expect.stringContaining('declares mutating; the catalog can raise a class, not lower it') } },
    })
    expect(await manager.api('PATCH', '/api/skills/slow_op', { class: 'harmless' })).toMatchObject({ status: 400 })

    // The edge comes back announcing safe again: the raise still holds.
    edge.child.kill('SIGKILL')
    await waitFor(() => manager.plane.sources.edges.get('pack-1')?.online === false)
    startEdge([manager.url], token, ['--packs', pack.dir])
    await waitFor(() => manager.plane.sources.edges.get('pack-1')?.online === true)
    expect(await call(manager.adminKey)).toMatchObject({ status: 202, body: { error: { code: 'approval_required' } } })
    expect((await manager.api('GET', '/api/skills?class=dangerous')).body.skills.map((s: { key: string }) => s.key)).toContain('slow_op')

    expect(await manager.api('PATCH', '/api/skills/slow_op', { class: null })).toMatchObject({
      status: 200,
      body: { class: 'safe', overrides: { class: false } },
    })
    expect(await call()).toMatchObject({ status: 200, body: { ok: true } })
  })
  it('lets an agent run call a host skill bound to it by key, naming the edge', async () => {
    const target = createServer().listen(0, '127.0.0.1')
    await once(target, 'listening')
    const port = (target.address() as AddressInfo).port
    const model = scripted(callsTool('probe_tcp', { host: '127.0.0.1', port, edge_id: 'ops-1' }), says('the port is open'))
    const manager = await startManager({ dataDir: tempDir() }, { agents: [{ name: 'Ops', model, skills: ['probe_tcp'] }] })
    await enrollAndStart(manager, 'ops-1')
    await waitFor(() => manager.plane.skills.isBound('ops', 'probe_tcp'))
    const run = await manager.api('POST', '/api/agents/ops/runs', { prompt: 'is the port open?' })
    expect(run).toMatchObject({ status: 201, body: { status: 'completed', output: 'the port is open' } })
    expect(workSteps(run.body)).toMatchObject([{ tool: 'probe_tcp', status: 'ok', output: { open: true } }, { text: 'the port is open' }])
    // The model saw the edges it may name, and the call is audited with its edge.
    const tool = model.doStreamCalls[0]!.tools!.find((t) => t.name === 'probe_tcp') as { inputSchema: any }
    expect(tool.inputSchema.properties.edge_id).toMatchObject({ enum: ['ops-1'] })
    expect((await manager.api('GET', `/api/audit/${workSteps(run.body)[0]!.callId}`)).body).toMatchObject({ agent: 'ops', edgeName: 'ops-1', status: 'ok' })
    target.close()
  })

  it('sends an edge pack the secrets it declares and the edge is granted, with each call only, and scrubs them from what comes back', async () => {
    const manager = await startManager({ dataDir: tempDir() })
    await enrollAndStart(manager, 'vault-1', { args: ['--packs', secretPacks()] })
    await waitFor(() => manager.plane.skills.get('probe_token') !== undefined)
    await manager.plane.values.secrets.set('PROBE_TOKEN', 'not-for-this-edge-yet')
    // The edge's announcement asks for PROBE_TOKEN; without an admin's grant the call is refused before anything runs.
    const ungranted = await manager.invoke('probe_token', { input: {}, edgeId: 'vault-1' })
    expect(ungranted).toMatchObject({
      status: 403,
      body: { ok: false, error: { code: 'denied', message: expect.stringContaining('edge "vault-1" declares the secret PROBE_TOKEN') } },
    })
    expect(ungranted.body.error.message).toContain('skillplane edges secrets vault-1 PROBE_TOKEN')
    expect((await manager.api('PUT', '/api/edges/vault-1/secrets', { secrets: ['bad-name'] })).status).toBe(400)
    expect((await manager.api('PUT', '/api/edges/nope/secrets', { secrets: [] })).status).toBe(404)
    expect(await manager.api('PUT', '/api/edges/vault-1/secrets', { secrets: ['PROBE_TOKEN'] })).toMatchObject({
      status: 200,
      body: { name: 'vault-1', secrets: ['PROBE_TOKEN'] },
    })
    await manager.plane.values.secrets.delete('PROBE_TOKEN')
    const refused = await manager.invoke('probe_token', { input: {}, edgeId: 'vault-1' })
    expect(refused).toMatchObject({ status: 424, body: { ok: false, error: { code: 'needs_auth', details: { missing: { secrets: ['PROBE_TOKEN'] } } } } })

    const token = 'edge-token-0123456789'
    await manager.plane.values.secrets.set('PROBE_TOKEN', token)
    const ran = await manager.invoke('probe_token', { input: {}, edgeId: 'vault-1' })
    expect(ran).toMatchObject({ status: 200, body: { ok: true, data: { length: token.length, echoed: '[REDACTED]' } } })
    // Another pack on the same edge never sees it: the edge holds no secret between calls.
    const other = await manager.invoke('env_names', { input: {}, edgeId: 'vault-1' })
    expect(other.status).toBe(200)
    expect(other.body.data).not.toContain('PROBE_TOKEN')
    expect(JSON.stringify((await manager.api('GET', '/api/audit?limit=10')).body)).not.toContain(token)
  })
})
