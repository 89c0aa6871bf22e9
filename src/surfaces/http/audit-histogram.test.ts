import { afterEach, describe, expect, it } from 'vitest'
import { databases } from '../../test-support/databases.js'
import { admin, agentCaller, openTestPlane } from '../../test-support/fixtures.js'
import type { Skillplane } from '../../agents/index.js'
import { startHttpServer, type HttpServer } from './start-http-server.js'

describe.each(databases)('GET /api/audit/histogram on $name', (database) => {
  let plane: Skillplane | undefined
  let server: HttpServer | undefined
  afterEach(async () => {
    await server?.close()
    await plane?.close()
  })

  it('counts calls and failures per bucket with the filters, every bucket of the range present', async () => {
    plane = await openTestPlane(database)
    server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    const key = (await plane.people.keys.create({ name: 'oscar', role: 'operator' }, plane.now())).key
    const get = async (query: string) => {
      const response = await fetch(`${server!.url}/api/audit/histogram?${query}`, { headers: { authorization: `Bearer ${key}` } })
      return { status: response.status, body: (await response.json()) as any }
    }
    for (const message of ['a', 'b', 'c']) await plane.invoke('echo', { message }, { caller: admin })
    await plane.invoke('explode', {}, { caller: admin })
    await plane.invoke('write_thing', { value: 'x' }, { caller: agentCaller('helper') })
    const now = Date.now()
    const from = new Date(now - 10 * 60_000).toISOString()
    const to = new Date(now + 60_000).toISOString()

    const all = await get(`from=${from}&to=${to}&bucket=minute`)
    expect(all.status).toBe(200)
    // The range starts at the start of its first bucket, which counts all of it.
    const minuteOf = (iso: string) => new Date(Math.floor(Date.parse(iso) / 60_000) * 60_000).toISOString()
    expect(all.body).toMatchObject({ bucket: 'minute', from: minuteOf(from), to })
    expect(all.body.points[0].at).toBe(minuteOf(from))
    expect(all.body.points.length).toBe(Math.ceil((Date.parse(to) - Date.parse(minuteOf(from))) / 60_000))
    const sum = (points: Array<{ calls: number; failed: number }>) =>
      points.reduce((t, p) => ({ calls: t.calls + p.calls, failed: t.failed + p.failed }), { calls: 0, failed: 0 })
    // The agent's mutating call waits for approval: a call, not a failure.
    expect(sum(all.body.points)).toEqual({ calls: 5, failed: 1 })
    expect(sum((await get(`from=${from}&to=${to}&skill=echo`)).body.points)).toEqual({ calls: 3, failed: 0 })
    expect(sum((await get(`from=${from}&to=${to}&agent=helper`)).body.points)).toEqual({ calls: 1, failed: 0 })
    expect(sum((await get(`from=${from}&to=${to}&status=error`)).body.points)).toEqual({ calls: 1, failed: 1 })
    expect(sum((await get(`from=${from}&to=${to}&caller=alice`)).body.points)).toEqual({ calls: 4, failed: 1 })
    // The default is the last day, in hours.
    const day = await get('')
    expect(day.body.bucket).toBe('hour')
    expect(sum(day.body.points)).toEqual({ calls: 5, failed: 1 })
    expect(sum((await get(`to=${from}`)).body.points)).toEqual({ calls: 0, failed: 0 })
  })

  it('refuses a range it cannot chart, naming what is wrong', async () => {
    plane = await openTestPlane(database)
    server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    const key = (await plane.people.keys.create({ name: 'oscar', role: 'operator' }, plane.now())).key
    const get = async (query: string) => {
      const response = await fetch(`${server!.url}/api/audit/histogram?${query}`, { headers: { authorization: `Bearer ${key}` } })
      return { status: response.status, body: (await response.json()) as any }
    }
    expect((await get('from=2026-02-01&to=2026-01-01')).body.error.message).toMatch(/from \(2026-02-01T00:00:00.000Z\) must be before to/)
    expect((await get('from=2024-01-01&to=2026-01-01&bucket=minute')).body.error.message).toMatch(/minute buckets are too many for one chart/)
    expect((await get('bucket=week')).body.error.message).toMatch(/bucket: must be minute, hour or day/)
    expect((await get('from=yesterday')).body.error.message).toMatch(/from: must be an ISO-8601 date/)
    expect((await get('limit=5')).body.error.message).toMatch(/limit/)
    expect((await get('bucket=week')).status).toBe(400)
  })
})
