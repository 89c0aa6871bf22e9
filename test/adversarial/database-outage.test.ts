import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { tempDir, waitFor, type TestDatabase } from '../../src/test-support/databases.js'
import { admin, openTestPlane } from '../../src/test-support/fixtures.js'
import { createTestDatabase, startTempPostgres, type TempPostgres } from '../../src/test-support/postgres.js'
import type { Skillplane } from '../../src/agents/index.js'
import { startHttpServer, type HttpServer } from '../../src/surfaces/http/start-http-server.js'
import { rounds } from './campaign.js'

// This suite stops and starts a PostgreSQL server of its own, never the shared one.
let pg: TempPostgres | null = null
beforeAll(async () => {
  pg = await startTempPostgres()
  if (!pg && process.env.SKILLPLANE_REQUIRE_POSTGRES === '1') throw new Error('the outage suite needs initdb and pg_ctl to run a PostgreSQL server of its own')
}, 60_000)
afterAll(() => pg?.stop())

const unused: TestDatabase = { name: 'postgres', create: () => Promise.reject(new Error('unused')) }

describe('a PostgreSQL outage', () => {
  const planes: Skillplane[] = []
  const servers: HttpServer[] = []
  afterEach(async () => {
    pg?.start()
    await Promise.all(servers.splice(0).map((s) => s.close()))
    await Promise.all(planes.splice(0).map((p) => p.close()))
  })

  async function manager(location: { dataDir: string; databaseUrl: string }) {
    const plane = await openTestPlane(unused, {}, location)
    planes.push(plane)
    const server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    servers.push(server)
    return { plane, server }
  }

  const get = async (url: string, key?: string) => {
    const response = await fetch(url, { headers: key ? { authorization: `Bearer ${key}` } : {} })
    return { status: response.status, retryAfter: response.headers.get('retry-after'), body: (await response.json()) as any }
  }

  it('keeps a call finished during the outage, lands it once the database is back, and answers 503 meanwhile', async () => {
    if (!pg) return console.warn('no PostgreSQL server of its own could be started: outage suite skipped')
    const location = { dataDir: tempDir(), databaseUrl: await createTestDatabase(pg.url) }
    const { plane, server } = await manager(location)
    const key = (await plane.people.keys.create({ name: 'ops', role: 'admin' }, plane.now())).key
    expect(await get(`${server.url}/api/health`)).toMatchObject({ status: 200, body: { ok: true } })

    // Calls running when the database goes away still answer, and their final rows are kept.
    const before = plane.invoke('slow', { ms: 1_500 }, { caller: admin })
    const beforeToo = plane.invoke('slow', { ms: 1_500 }, { caller: admin })
    await new Promise((r) => setTimeout(r, 300))
    pg.halt()
    const [kept, keptToo] = await Promise.all([before, beforeToo])
    expect(kept).toMatchObject({ ok: true, data: { slept: 1_500 } })
    expect(keptToo).toMatchObject({ ok: true })
    expect(plane.status.auditBacklog).toBe(2)

    // Every surface says the database is unavailable, with a reason and Retry-After, never 500.
    const health = await get(`${server.url}/api/health`)
    expect(health).toMatchObject({ status: 503, retryAfter: '5', body: { ok: false, database: 'postgres', error: { code: 'unavailable' } } })
    expect(health.body.error.message).not.toContain('127.0.0.1')
    // A readiness probe takes the manager out of rotation; the liveness probe keeps it from being restarted.
    expect(await get(`${server.url}/api/health/ready`)).toMatchObject({ status: 503, retryAfter: '5', body: { ok: false, error: { code: 'unavailable' } } })
    expect(await get(`${server.url}/api/health/live`)).toMatchObject({ status: 200, body: { ok: true } })
    await new Promise((r) => setTimeout(r, 1_100))
    for (const path of ['/api/audit', '/api/approvals', '/api/skills', '/api/runs']) {
      const answer = await get(`${server.url}${path}`, key)
      expect(answer, path).toMatchObject({
        status: 503,
        retryAfter: '5',
        body: { ok: false, error: { code: 'unavailable', message: expect.stringContaining('the database is unavailable') } },
      })
    }
    const refused = await plane.invoke('slow', { ms: 1 }, { caller: admin })
    expect(refused).toMatchObject({
      ok: false,
      error: { code: 'unavailable', message: expect.stringContaining("the audit log can't be written, so the call was not run") },
    })

    // Back: the backlog lands in order, and the rows say what the callers were told.
    pg.start()
    await waitFor(() => plane.status.auditBacklog === 0, 15_000)
    expect(await plane.audit.get(kept.callId)).toMatchObject({ status: 'ok', result: { slept: 1500 } })
    expect(await plane.audit.get(keptToo.callId)).toMatchObject({ status: 'ok' })
    expect(await get(`${server.url}/api/health`)).toMatchObject({ status: 200, body: { ok: true } })
    expect(await get(`${server.url}/api/health/ready`)).toMatchObject({ status: 200, body: { ok: true, database: 'postgres' } })
    expect(readdirSync(join(location.dataDir, 'audit-backlog'))).toEqual([])
  })

  it('lands rows kept by a manager that stopped during the outage at the next start, before recovery judges them', async () => {
    if (!pg) return console.warn('no PostgreSQL server of its own could be started: outage suite skipped')
    const location = { dataDir: tempDir(), databaseUrl: await createTestDatabase(pg.url) }
    const { plane } = await manager(location)
    const call = plane.invoke('slow', { ms: 800 }, { caller: admin })
    await new Promise((r) => setTimeout(r, 200))
    pg.halt()
    const kept = await call
    expect(kept).toMatchObject({ ok: true })
    await servers.pop()!.close()
    await planes.pop()!.close()
    expect(readdirSync(join(location.dataDir, 'audit-backlog'))).toHaveLength(1)

    pg.start()
    const { plane: next } = await manager(location)
    expect(next.status.recoveredCalls).toBe(0)
    expect(await next.audit.get(kept.callId)).toMatchObject({ status: 'ok', error: null })
    expect(readdirSync(join(location.dataDir, 'audit-backlog'))).toEqual([])
  })

  it('stops and starts under load: zero 500s, zero lost or stuck rows', async () => {
    if (!pg) return console.warn('no PostgreSQL server of its own could be started: outage suite skipped')
    const location = { dataDir: tempDir(), databaseUrl: await createTestDatabase(pg.url) }
    const { plane, server } = await manager(location)
    const key = (await plane.people.keys.create({ name: 'load', role: 'admin' }, plane.now())).key
    const figures = { requests: 0, ok: 0, unavailable503: 0, other5xx: 0, otherStatus: 0, missingRetryAfter: 0 }
    const answered: string[] = []
    let stop = false
    const worker = async (n: number) => {
      while (!stop) {
        const invoke = n % 3 !== 0
        const response = await fetch(invoke ? `${server.url}/api/skills/slow/invoke` : `${server.url}/api/audit?limit=1`, {
          method: invoke ? 'POST' : 'GET',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: invoke ? JSON.stringify({ input: { ms: 30 } }) : undefined,
        }).catch(() => null)
        figures.requests++
        if (!response) continue
        const body = (await response.json()) as { callId?: string }
        if (response.status === 200) {
          figures.ok++
          if (invoke && body.callId) answered.push(body.callId)
        } else if (response.status === 503) {
          figures.unavailable503++
          if (response.headers.get('retry-after') === null && !body.callId) figures.missingRetryAfter++
        } else if (response.status >= 500) figures.other5xx++
        else figures.otherStatus++
      }
    }
    const workers = Array.from({ length: 6 }, (_, n) => worker(n))
    const outages = rounds(1)
    for (let i = 0; i < outages; i++) {
      await new Promise((r) => setTimeout(r, 700))
      pg.halt()
      await new Promise((r) => setTimeout(r, 1_500))
      pg.start()
    }
    await new Promise((r) => setTimeout(r, 1_000))
    stop = true
    await Promise.all(workers)
    await waitFor(() => plane.status.auditBacklog === 0, 15_000)
    const rows = await Promise.all(answered.map((id) => plane.audit.get(id)))
    const lost = rows.filter((r) => !r).length
    const notOk = rows.filter((r) => r && r.status !== 'ok').length
    const stuck = (await plane.audit.query({ status: 'running', limit: 500 })).items.length
    console.log(
      `PostgreSQL outage under load: ${outages} outage(s), ${JSON.stringify(figures)}, 200 invokes ${answered.length}, rows lost ${lost}, rows not ok ${notOk}, rows stuck running ${stuck}`,
    )
    expect(figures).toMatchObject({ other5xx: 0, otherStatus: 0 })
    expect(figures.unavailable503).toBeGreaterThan(0)
    expect({ lost, notOk, stuck }).toEqual({ lost: 0, notOk: 0, stuck: 0 })
  })
})
