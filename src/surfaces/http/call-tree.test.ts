import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { databases } from '../../test-support/databases.js'
import { admin, openTestPlane } from '../../test-support/fixtures.js'
import { defineSkill } from '../../skill/index.js'
import type { Skillplane } from '../../agents/index.js'
import { startHttpServer, type HttpServer } from './start-http-server.js'

const leaf = defineSkill({ key: 'leaf', description: 'A leaf', class: 'safe', input: z.object({ n: z.number() }), run: ({ n }) => ({ n }) })
const middle = defineSkill({
  key: 'middle',
  description: 'Calls leaf twice',
  class: 'safe',
  input: z.object({ n: z.number() }),
  run: async ({ n }, ctx) => {
    await ctx.invoke('leaf', { n: n * 10 + 1 })
    await ctx.invoke('leaf', { n: n * 10 + 2 })
    return { n }
  },
})
const outer = defineSkill({
  key: 'outer',
  description: 'Calls middle twice',
  class: 'safe',
  run: async (_input, ctx) => {
    await ctx.invoke('middle', { n: 1 })
    await ctx.invoke('middle', { n: 2 })
    return {}
  },
})
const fan = defineSkill({
  key: 'fan',
  description: 'Calls leaf many times',
  class: 'safe',
  input: z.object({ count: z.number() }),
  run: async ({ count }, ctx) => {
    for (let n = 0; n < count; n++) await ctx.invoke('leaf', { n })
    return {}
  },
})

describe.each(databases)('call trees over HTTP on $name', (database) => {
  let plane: Skillplane | undefined
  let server: HttpServer | undefined
  afterEach(async () => {
    await server?.close()
    await plane?.close()
  })

  const open = async () => {
    plane = await openTestPlane(database, { skills: [leaf, middle, outer, fan] })
    server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    const key = (await plane.people.keys.create({ name: 'oscar', role: 'operator' }, plane.now())).key
    const get = async (path: string, as = key) => {
      const response = await fetch(`${server!.url}${path}`, { headers: { authorization: `Bearer ${as}` } })
      return { status: response.status, body: (await response.json()) as any }
    }
    return { plane, get }
  }

  it('shows nested ctx.invoke calls as one tree from any of its calls, parent before children, siblings by start', async () => {
    const { plane, get } = await open()
    const envelope = await plane.invoke('outer', {}, { caller: admin })
    expect(envelope.ok).toBe(true)
    const calls = (await plane.audit.query({ limit: 10 })).items
    const deepest = calls.find((c) => c.skill === 'leaf')!
    const { status, body } = await get(`/api/audit/${deepest.callId}/tree`)
    expect(status).toBe(200)
    expect(body.rootId).toBe(`call:${envelope.callId}`)
    expect(body.truncated).toBe(false)
    const names = body.spans.map((s: any) => s.name)
    expect(names).toEqual(['outer', 'middle', 'leaf', 'leaf', 'middle', 'leaf', 'leaf'])
    const byId = new Map(body.spans.map((s: any) => [s.id, s]))
    for (const span of body.spans.slice(1)) {
      const parent: any = byId.get(span.parentId)
      expect(parent.callId).toBe(calls.find((c) => c.callId === span.callId)!.parentCallId)
      expect(span.startedAt >= parent.startedAt).toBe(true)
    }
    expect(body.spans.every((s: any) => s.kind === 'call' && s.status === 'ok' && s.endedAt !== null)).toBe(true)
    expect(body.startedAt).toBe(body.spans[0].startedAt)
    // Any call of the tree answers the same tree.
    expect((await get(`/api/audit/${envelope.callId}/tree`)).body).toEqual(body)
  })

  it('answers 404 for an unknown call or run', async () => {
    const { get } = await open()
    const call = await get('/api/audit/01JUNKNOWNCALL0000000000000/tree')
    expect(call.status).toBe(404)
    expect(call.body.error.code).toBe('not_found')
    expect((await get('/api/runs/nope/tree')).status).toBe(404)
  })

  it('caps a tree at 2,000 spans and says it was cut', async () => {
    const { plane, get } = await open()
    const envelope = await plane.invoke('fan', { count: 2_005 }, { caller: admin })
    expect(envelope.ok).toBe(true)
    const { body } = await get(`/api/audit/${envelope.callId}/tree`)
    expect(body.truncated).toBe(true)
    expect(body.spans).toHaveLength(2_000)
    expect(body.spans[0].name).toBe('fan')
    const small = await plane.invoke('fan', { count: 3 }, { caller: admin })
    expect((await get(`/api/audit/${small.callId}/tree`)).body).toMatchObject({ truncated: false, spans: [{}, {}, {}, {}] })
  }, 120_000)
})
