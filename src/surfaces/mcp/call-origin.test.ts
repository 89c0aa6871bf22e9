import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { databases, waitFor } from '../../test-support/databases.js'
import { admin, openTestPlane } from '../../test-support/fixtures.js'
import { freePort } from '../../test-support/free-port.js'
import { defineSkill } from '../../skill/index.js'
import type { Skillplane } from '../../agents/index.js'
import { startHttpServer } from '../http/start-http-server.js'

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
const skills = [leaf, middle]
const TOKEN = 'MCP_TOKEN'

describe.each(databases)('MCP calls between skillplanes on $name', (database) => {
  const cleanup: Array<() => Promise<unknown>> = []
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step().catch(() => {})
  })

  /** A plane serving HTTP on `port`, importing the /mcp at `imports` (as `name`) with an admin key of `keyFrom`. */
  async function start(port: number, imports?: { name: string; url: string }, location?: { dataDir: string; databaseUrl?: string }) {
    const mcpServers = imports ? [{ name: imports.name, url: imports.url, headers: { authorization: { secret: TOKEN, prefix: 'Bearer ' } } }] : []
    const plane = await openTestPlane(database, { skills, mcpServers }, location)
    cleanup.push(() => plane.close())
    const server = await startHttpServer(plane, { host: '127.0.0.1', port })
    cleanup.push(() => server.close())
    const key = (await plane.people.keys.create({ name: 'root', role: 'admin' }, plane.now())).key
    const get = async (path: string) => {
      const response = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${key}` } })
      return { status: response.status, body: (await response.json()) as any }
    }
    return { plane, server, key, get }
  }
  const connected = async (plane: Skillplane, key: string) => {
    await plane.values.secrets.set(TOKEN, key)
    await waitFor(() => plane.sources.mcpServers()[0]!.state === 'connected')
  }

  it('joins the call a skillplane makes of its own /mcp to the call that made it: one tree through the origin', async () => {
    const port = await freePort()
    const { plane, key, get } = await start(port, { name: 'self', url: `http://127.0.0.1:${port}/mcp` })
    await connected(plane, key)

    const envelope = await plane.invoke('self_middle', { n: 1 }, { caller: admin })
    expect(envelope).toMatchObject({ ok: true })
    const served = (await plane.audit.query({ skill: 'middle', limit: 5 })).items
    expect(served).toHaveLength(1)
    expect(served[0]).toMatchObject({ originCallId: envelope.callId, parentCallId: null })

    const leafCall = (await plane.audit.query({ skill: 'leaf', limit: 5 })).items[0]!
    const { body } = await get(`/api/audit/${leafCall.callId}/tree`)
    expect(body.rootId).toBe(`call:${envelope.callId}`)
    expect(body.spans.map((s: any) => [s.kind, s.name])).toEqual([
      ['call', 'self_middle'],
      ['call', 'middle'],
      ['call', 'leaf'],
      ['call', 'leaf'],
    ])
    expect(body.spans[1].parentId).toBe(`call:${envelope.callId}`)
  })

  it("shows a call on another skillplane's database as a remote span named by its call id, which that skillplane audits as the origin", async () => {
    const far = await start(0)
    const near = await start(0, { name: 'far', url: `${far.server.url}/mcp` })
    await connected(near.plane, far.key)

    const envelope = await near.plane.invoke('far_middle', { n: 2 }, { caller: admin })
    expect(envelope).toMatchObject({ ok: true })
    const remote = (await far.plane.audit.query({ skill: 'middle', limit: 5 })).items[0]!
    expect(remote.originCallId).toBe(envelope.callId)

    const { body } = await near.get(`/api/audit/${envelope.callId}/tree`)
    expect(body.spans.map((s: any) => [s.kind, s.parentId, s.callId])).toEqual([
      ['call', null, envelope.callId],
      ['remote', `call:${envelope.callId}`, remote.callId],
    ])
    expect(body.spans[1]).toMatchObject({ name: `far ${remote.callId}`, status: 'ok', endedAt: expect.any(String) })
    // Far away, its tree starts with the call the origin names: a call unknown there.
    expect((await far.get(`/api/audit/${remote.callId}/tree`)).body.rootId).toBe(`call:${remote.callId}`)
  })

  it('ignores a _meta that is malformed, oversized or of the wrong type: the call runs with no origin and no trace taken up', async () => {
    const { plane, server, key, get } = await start(0)
    const client = new Client({ name: 'forger', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }))
    cleanup.push(() => client.close())
    const forged = [
      { 'skillplane/callId': 'x'.repeat(200_000), traceparent: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01${'c'.repeat(1000)}` },
      { 'skillplane/callId': ['01ARZ3NDEKTSV4RRFFQ69G5FAV'], traceparent: 42 },
      {
        'skillplane/callId': '01arz3ndektsv4rrffq69g5fav' /* not a ULID as skillplane writes them */,
        traceparent: `00-${'0'.repeat(32)}-${'b'.repeat(16)}-01`,
      },
      { 'skillplane/callId': "01ARZ3NDEKTSV4RRFFQ69G5FAV' or 1=1 --" },
    ]
    for (const _meta of forged) {
      const result = await client.callTool({ name: 'leaf', arguments: { n: 1 }, _meta })
      expect(result.isError).toBeFalsy()
      const callId = (result._meta as Record<string, string>)['skillplane/callId']!
      const row = await get(`/api/audit/${callId}`)
      expect(row.body).toMatchObject({ status: 'ok', originCallId: null, traceId: null })
    }
    // A well-formed id of a call that isn't there is kept as the claim it is, and joins nothing.
    const claimed = '01ARZ3NDEKTSV4RRFFQ69G5FAV'
    const result = await client.callTool({ name: 'middle', arguments: { n: 1 }, _meta: { 'skillplane/callId': claimed } })
    const callId = (result._meta as Record<string, string>)['skillplane/callId']!
    expect((await get(`/api/audit/${callId}`)).body.originCallId).toBe(claimed)
    const tree = await get(`/api/audit/${callId}/tree`)
    expect(tree.body.rootId).toBe(`call:${callId}`)
    expect(tree.body.spans.map((s: any) => s.name)).toEqual(['middle', 'leaf', 'leaf'])
    expect((await get(`/api/audit/${claimed}/tree`)).status).toBe(404)
    expect((await plane.audit.query({ limit: 50 })).items.every((c) => c.status === 'ok')).toBe(true)
  })
})
