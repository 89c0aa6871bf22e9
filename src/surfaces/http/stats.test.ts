import { afterEach, describe, expect, it } from 'vitest'
import { databases } from '../../test-support/databases.js'
import { admin, agentCaller, approvalIdOf, openTestPlane, operator } from '../../test-support/fixtures.js'
import type { Skillplane } from '../../agents/index.js'
import { PERCENTILE_ERROR } from '../../store/index.js'
import { startHttpServer, type HttpServer } from './start-http-server.js'

describe.each(databases)('GET /api/stats on $name', (database) => {
  let plane: Skillplane | undefined
  let server: HttpServer | undefined
  afterEach(async () => {
    await server?.close()
    await plane?.close()
  })

  async function start() {
    plane = await openTestPlane(database)
    server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    const key = (await plane.people.keys.create({ name: 'oscar', role: 'operator' }, plane.now())).key
    return async (path: string) => {
      const response = await fetch(`${server!.url}${path}`, { headers: { authorization: `Bearer ${key}` } })
      return { status: response.status, body: (await response.json()) as any }
    }
  }

  it('gives each skill its calls, error and refusal rates, percentiles and approval waits, sorted as asked', async () => {
    const get = await start()
    const p = plane!
    for (const message of ['a', 'b', 'c']) await p.invoke('echo', { message }, { caller: admin })
    await p.invoke('explode', {}, { caller: admin })
    await p.invoke('explode', {}, { caller: operator })
    await p.invoke('slow', { ms: 60 }, { caller: admin })
    await p.invoke('slow', { ms: 80 }, { caller: admin })
    // A viewer may not call a mutating skill: refused.
    await p.invoke('write_thing', { value: 'v' }, { caller: { kind: 'user', id: 'u-v', name: 'vic', role: 'viewer' } })
    const waiting = approvalIdOf(await p.invoke('write_thing', { value: 'w' }, { caller: agentCaller('helper') }))
    const decided = approvalIdOf(await p.invoke('write_thing', { value: 'x' }, { caller: agentCaller('helper') }))

    const before = await get('/api/stats?dim=skill&window=1h')
    expect(before.status).toBe(200)
    const row = (body: any, value: string) => body.items.find((r: any) => r.value === value)
    expect(row(before.body, 'write_thing')).toMatchObject({ calls: 3, refused: 1, approvalsPending: 2, approvalWaits: 0, waitMedianS: null })
    expect((await p.approvals.decide({ id: decided, caller: admin, decision: 'approve' })).ok).toBe(true)

    const { body, status } = await get('/api/stats?dim=skill&window=1h')
    expect(status).toBe(200)
    expect(body).toMatchObject({ dim: 'skill', window: '1h' })
    expect(Date.parse(body.to) - Date.parse(body.from)).toBe(3_600_000)
    expect(row(body, 'echo')).toMatchObject({ calls: 3, ok: 3, failed: 0, refused: 0, errorRate: 0, refusalRate: 0, approvalsPending: 0 })
    expect(row(body, 'explode')).toMatchObject({ calls: 2, failed: 2, errorRate: 1 })
    const refusedShare = row(body, 'write_thing').refusalRate
    expect(refusedShare).toBeCloseTo(1 / 3)
    expect(row(body, 'write_thing')).toMatchObject({ approvalsPending: 1, approvalWaits: 1 })
    expect(row(body, 'write_thing').waitMedianS).not.toBeNull()
    // The slow skill's durations, read back from the histogram within its error bound.
    const slow = row(body, 'slow')
    expect(slow.p50Ms).toBeGreaterThanOrEqual(60 * (1 - PERCENTILE_ERROR))
    expect(slow.p99Ms).toBeGreaterThanOrEqual(80 * (1 - PERCENTILE_ERROR))

    const order = async (query: string) => (await get(`/api/stats?${query}`)).body.items.map((r: any) => r.value)
    expect((await order('sort=p95&window=1h'))[0]).toBe('slow')
    expect((await order('sort=errorRate&window=1h'))[0]).toBe('explode')
    expect((await order('sort=approvalsPending&window=1h'))[0]).toBe('write_thing')
    expect(await order('sort=calls&order=asc&limit=2&window=1h')).toEqual(['explode', 'slow'])
    // Skills that never ran sort last either way.
    expect((await order('sort=waitMedian&order=asc&window=1h'))[0]).toBe('write_thing')

    const callers = (await get('/api/stats?dim=caller&window=24h')).body
    expect(row(callers, admin.id)).toMatchObject({ calls: 6, failed: 1 })
    expect(row(callers, operator.id)).toMatchObject({ calls: 1, failed: 1 })
    const agents = (await get('/api/stats?dim=agent&window=7d')).body
    expect(agents.items).toHaveLength(1)
    expect(agents.items[0]).toMatchObject({ calls: 2, approvalsPending: 1, approvalWaits: 1 })

    // One skill's chart: every minute of the hour, the calls where they were made.
    const series = await get('/api/stats/skill/echo/series?window=1h')
    expect(series.status).toBe(200)
    expect(series.body).toMatchObject({ dim: 'skill', value: 'echo', window: '1h' })
    expect(series.body.points).toHaveLength(60)
    expect(series.body.points.reduce((n: number, point: any) => n + point.calls, 0)).toBe(3)
    const everything = await get('/api/stats/all/-/series?window=24h')
    expect(everything.body.points.reduce((n: number, point: any) => n + point.calls, 0)).toBe(10)
    expect(everything.body.points.reduce((n: number, point: any) => n + point.approvalWaits, 0)).toBe(1)
    const byAlias = await get('/api/stats/agent/h/series?window=30d')
    expect(byAlias.body.points.reduce((n: number, point: any) => n + point.calls, 0)).toBe(2)
    expect(waiting).toBeTruthy()
  })

  it('holds counts, never what a call was given', async () => {
    const get = await start()
    const secret = 'hunter2-stats-secret'
    await plane!.invoke('login', { user: 'ann', pin: secret, password: secret }, { caller: admin })
    await plane!.invoke('leaky', { passphrase: secret, fail: true }, { caller: admin })
    const shown = [
      await get('/api/stats?dim=skill&window=1h'),
      await get('/api/stats?dim=caller&window=1h'),
      await get('/api/stats/skill/leaky/series?window=1h'),
    ]
    expect(shown.map((r) => r.status)).toEqual([200, 200, 200])
    expect(shown[0]!.body.items.find((r: any) => r.value === 'leaky')).toMatchObject({ calls: 1, failed: 1 })
    expect(JSON.stringify(shown)).not.toContain(secret)
  })

  it('refuses a bad dimension, window, sort, order or limit with a 400 naming it', async () => {
    const get = await start()
    for (const [query, named] of [
      ['dim=planet', /dim: must be one of skill, agent, edge, caller/],
      ['window=2h', /window: must be one of 1h, 6h, 24h, 7d, 30d/],
      ['sort=speed', /sort: must be one of calls, errorRate/],
      ['order=up', /order: must be asc or desc/],
      ['limit=0', /limit: must be at least 1/],
      ['limit=many', /limit: must be a number/],
      ['dim=skill&color=red', /color/],
    ] as const) {
      const answer = await get(`/api/stats?${query}`)
      expect(answer.status, query).toBe(400)
      expect(answer.body.error.message, query).toMatch(named)
    }
    const badDim = await get('/api/stats/planet/x/series?window=1h')
    expect(badDim.status).toBe(400)
    expect(badDim.body.error.message).toMatch(/dim: must be one of skill, agent, edge, caller, all/)
    const badWindow = await get('/api/stats/skill/echo/series?window=1y')
    expect(badWindow.status).toBe(400)
    expect(badWindow.body.error.message).toMatch(/window: must be one of/)
  })
})
