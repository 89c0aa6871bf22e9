import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { databases } from '../../src/test-support/databases.js'
import { MAIN, secretPacks, slowPack, startEdge, startManager, tempDir, waitFor } from './edge-harness.js'

const postgres = databases.find((d) => d.name === 'postgres')

/** `skillplane serve` as a real process on the shared database, so that it can be killed. */
function serveProcess(location: { dataDir: string; databaseUrl?: string }, config: string) {
  const child = spawn(
    process.execPath,
    [MAIN, 'serve', '--port', '0', '--data-dir', location.dataDir, '--config', config, '--database-url', location.databaseUrl!],
    {
      env: { ...process.env, SKILLPLANE_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let out = ''
  const ready = new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      out += chunk
      const url = /api\s+(http:\/\/\S+)\/api\/skills/.exec(out)?.[1]
      if (url) resolve(url)
    })
    child.on('exit', () => reject(new Error(`serve exited early: ${out}`)))
  })
  return { child, ready }
}

describe.skipIf(!postgres)('edges across managers on PostgreSQL', () => {
  it('routes a call from another manager to the one holding the edge; that manager killed mid-call ends it edge_unavailable, and the edge moves on', async () => {
    const location = await postgres!.create()
    const pack = slowPack()
    const config = join(tempDir('skillplane-edge-pg-'), 'skillplane.config.mjs')
    writeFileSync(config, `export default ${JSON.stringify({ edges: { heartbeatMs: 500 } })}\n`)
    // One data dir for both: managers sharing a database share its approval secret.
    const holder = serveProcess(location, config)
    const holderUrl = await holder.ready
    try {
      const caller = await startManager(location)
      const enrolled = await caller.api('POST', '/api/edges', { name: 'far', labels: { env: 'prod' }, secrets: ['PROBE_TOKEN'] })
      // The edge knows both managers and dials the first.
      const edge = startEdge([holderUrl, caller.url], enrolled.body.token, ['--packs', pack.dir, '--packs', secretPacks()])
      await waitFor(() => caller.plane.sources.edges.get('far')?.online === true || edge.child.exitCode !== null)
      if (caller.plane.sources.edges.get('far')?.online !== true) throw new Error(`the edge did not come online: ${edge.output()}`)
      expect(caller.plane.sources.edges.get('far')!.managerId).not.toBe(caller.plane.status.managerId)

      const relayed = await caller.invoke('slow_op', { input: { ms: 5 }, edgeId: 'far' })
      expect(relayed).toMatchObject({ status: 200, body: { ok: true, data: { slept: 5 } } })
      expect(await caller.plane.audit.get(relayed.body.callId)).toMatchObject({ status: 'ok', edgeName: 'far', edgeId: enrolled.body.edge.id })
      // A secret travels to the holder sealed in the shared table, and is gone from it after the call.
      await caller.plane.values.secrets.set('PROBE_TOKEN', 'relayed-token-0123')
      const secret = await caller.invoke('probe_token', { input: {}, edgeId: 'far' })
      expect(secret).toMatchObject({ status: 200, body: { ok: true, data: { length: 'relayed-token-0123'.length, echoed: '[REDACTED]' } } })
      // Refusals the edge makes travel back as they are.
      expect(await caller.invoke('slow_op', { input: { ms: -1 }, edgeId: 'far' })).toMatchObject({ status: 400, body: { error: { code: 'invalid_input' } } })

      const pending = caller.invoke('slow_op', { input: { ms: 8_000, marker: 'orphan' }, edgeId: 'far' })
      await new Promise((r) => setTimeout(r, 700))
      holder.child.kill('SIGKILL')
      const ended = await pending
      expect(ended).toMatchObject({ status: 502, body: { error: { code: 'edge_unavailable' } } })
      expect(ended.body.error.message).toMatch(/^manager \S+, which held edge "far", stopped answering mid-call: the outcome on the edge is unknown$/)
      expect(await caller.plane.audit.get(ended.body.callId)).toMatchObject({
        status: 'error',
        error: { code: 'edge_unavailable' },
        finishedAt: expect.any(String),
      })

      // The edge reconnects to the manager still alive, and calls run there.
      await waitFor(() => caller.plane.sources.edges.get('far')?.managerId === caller.plane.status.managerId)
      expect(await caller.invoke('slow_op', { input: { ms: 1 }, edgeId: 'far' })).toMatchObject({ body: { ok: true } })
    } finally {
      holder.child.kill('SIGKILL')
    }
  })

  it("refuses a second connection with an edge's token at another manager, and a rotation there closes the first manager's connection", async () => {
    const location = await postgres!.create()
    const first = await startManager(location)
    const second = await startManager(location)
    const enrolled = await first.api('POST', '/api/edges', { name: 'twice' })
    const edge = startEdge([first.url], enrolled.body.token)
    await waitFor(() => second.plane.sources.edges.get('twice')?.online === true, 20_000).catch(() => {
      throw new Error(`the edge did not come online: ${edge.output()}`)
    })
    // The same token at the other manager, while the edge is online at the first.
    const status = await new Promise<number>((resolve, reject) => {
      const ws = new WebSocket(`${second.url.replace('http', 'ws')}/api/edges/connect`, { headers: { authorization: `Bearer ${enrolled.body.token}` } })
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0))
      ws.on('open', () => reject(new Error('a second connection was let in')))
      ws.on('error', () => {})
    })
    expect(status).toBe(409)
    expect((await first.api('GET', '/api/audit/events?kind=edge.connection_refused')).body.items).toMatchObject([
      { details: { name: 'twice', holder: first.plane.status.managerId } },
    ])
    expect(first.plane.sources.edges.get('twice')?.managerId).toBe(first.plane.status.managerId)

    const rotated = await second.api('POST', '/api/edges/twice/rotate', {})
    expect(rotated.status).toBe(200)
    expect(await edge.exited).toBe(3)
    expect(edge.output()).toContain("this edge's token was rotated")
    const again = startEdge([second.url], rotated.body.token)
    await waitFor(() => first.plane.sources.edges.get('twice')?.managerId === second.plane.status.managerId, 20_000).catch(() => {
      throw new Error(`the edge did not come back: ${again.output()}`)
    })
  })

  it('lets one of two connections with the same token, let in at two managers at the same moment, keep the edge; the other is closed as a duplicate and recorded', async () => {
    const location = await postgres!.create()
    const first = await startManager(location)
    const second = await startManager(location)
    const enrolled = await first.api('POST', '/api/edges', { name: 'racer' })
    // Both upgrades pass while nobody holds the edge; the hellos then arrive one after the other.
    const [a, b] = await Promise.all([first, second].map((m) => openTunnel(m.url, enrolled.body.token)))
    a!.ws.send(hello)
    await waitFor(() => first.plane.sources.edges.get('racer')?.online === true)
    b!.ws.send(hello)
    const answer = await Promise.race([b!.closed, new Promise((resolve) => b!.ws.once('message', (data) => resolve({ welcomed: String(data) })))])
    expect(answer).toEqual({ code: 4409, reason: 'edge "racer" is connected already: one connection per token' })
    expect(first.plane.sources.edges.get('racer')).toMatchObject({ online: true, managerId: first.plane.status.managerId })
    await second.plane.sources.edges.refresh()
    expect(second.plane.sources.edges.get('racer')).toMatchObject({ online: true, managerId: first.plane.status.managerId })
    expect((await first.api('GET', '/api/audit/events?kind=edge.connection_refused')).body.items).toMatchObject([
      { details: { name: 'racer', reason: 'connected already', holder: first.plane.status.managerId } },
    ])
    a!.ws.close()
  })
})

const hello = JSON.stringify({ type: 'hello', protocol: 1, hostname: 'raw', os: 'test', arch: 'x64', version: '0', labels: {}, skills: [] })

/** A raw tunnel, open but not yet greeted: where the manager waits for the hello. */
function openTunnel(url: string, token: string): Promise<{ ws: WebSocket; closed: Promise<{ code: number; reason: string }> }> {
  const ws = new WebSocket(`${url.replace('http', 'ws')}/api/edges/connect`, { headers: { authorization: `Bearer ${token}` } })
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })))
  return new Promise((resolve, reject) => {
    ws.on('open', () => resolve({ ws, closed }))
    ws.on('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)))
    ws.on('error', () => {})
  })
}
