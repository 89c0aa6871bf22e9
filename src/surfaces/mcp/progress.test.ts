import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Progress } from '@modelcontextprotocol/sdk/types.js'
import { databases } from '../../test-support/databases.js'
import { admin, openTestPlane } from '../../test-support/fixtures.js'
import { defineSkill } from '../../skill/define-skill.js'
import { startHttpServer } from '../http/start-http-server.js'

const [sqlite] = databases
const FIXTURE = join(import.meta.dirname, '../../sources/mcp/fixtures/test-mcp-server.mjs')

// A code skill that reports progress, including reports a client must never see (going back, not numbers).
const counting = defineSkill({
  key: 'count_up',
  description: 'Count to three, reporting each step',
  class: 'safe',
  input: z.object({}),
  run: async (_input, ctx) => {
    for (const n of [1, 2, 2, Number.NaN, 3]) {
      ctx.progress({ progress: n, total: 3, message: `step ${n}` })
      await new Promise((r) => setTimeout(r, 20))
    }
    return { counted: 3 }
  },
})

describe('progress through the pipeline', () => {
  const cleanup: Array<() => Promise<unknown>> = []
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step().catch(() => {})
  })

  it("passes an imported server's progress and a code skill's to an MCP client that asked, and keeps its request alive", async () => {
    const plane = await openTestPlane(sqlite!, {
      skills: [counting],
      mcpServers: [{ name: 'fix', command: process.execPath, args: [FIXTURE, 'stdio'] }],
    })
    cleanup.push(() => plane.close())
    const server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    cleanup.push(() => server.close())
    const key = (await plane.people.keys.create({ name: 'root', role: 'admin' }, plane.now())).key
    const client = new Client({ name: 'long-calls', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }))
    cleanup.push(() => client.close())

    // A first call warms the path up, so a loaded machine's first-call cost doesn't eat the timeout below.
    expect(await client.callTool({ name: 'fix_slow', arguments: { ms: 10 } })).toMatchObject({ content: [{ type: 'text', text: 'waited 10 ms' }] })
    // The imported tool runs half as long again as the client's own timeout, and reports every 50 ms: only
    // the reports, each resetting the timeout, keep the call alive. The timeout is far above the 50 ms
    // between reports, so only a stall of seconds on a loaded machine could end it early.
    const timeout = 2_000
    const runs = (timeout * 3) / 2
    const heard: Progress[] = []
    const started = Date.now()
    const result = await client.callTool({ name: 'fix_slow', arguments: { ms: runs } }, undefined, {
      onprogress: (p) => heard.push(p),
      timeout,
      resetTimeoutOnProgress: true,
    })
    expect(result.isError).toBeFalsy()
    expect(result).toMatchObject({ content: [{ type: 'text', text: `waited ${runs} ms` }] })
    expect(Date.now() - started).toBeGreaterThan(timeout)
    expect(heard[0]).toEqual({ progress: 1, total: runs / 50, message: 'waited 50 ms' })
    expect(heard.map((p) => p.progress)).toEqual([...heard.keys()].map((i) => i + 1))

    const counted: Progress[] = []
    expect(await client.callTool({ name: 'count_up', arguments: {} }, undefined, { onprogress: (p) => counted.push(p) })).toMatchObject({
      content: [{ type: 'text', text: expect.stringMatching(/"counted": ?3/) }],
    })
    // Strictly increasing, numbers only: the repeated 2 and the NaN never reach the client.
    expect(counted).toEqual([
      { progress: 1, total: 3, message: 'step 1' },
      { progress: 2, total: 3, message: 'step 2' },
      { progress: 3, total: 3, message: 'step 3' },
    ])

    // Without a listener the same calls run as before; through the library API, onProgress hears them.
    const direct: number[] = []
    expect(await plane.invoke('count_up', {}, { caller: admin, onProgress: (p) => direct.push(p.progress) })).toMatchObject({ ok: true })
    expect(direct).toEqual([1, 2, 2, 3])
    expect(await plane.invoke('fix_slow', { ms: 120 }, { caller: admin })).toMatchObject({ ok: true })
  })

  it('passes on every report of an imported tool that reports just before returning, the last included', async () => {
    const plane = await openTestPlane(sqlite!, { mcpServers: [{ name: 'fix', command: process.execPath, args: [FIXTURE, 'stdio'] }] })
    cleanup.push(() => plane.close())
    const server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    cleanup.push(() => server.close())
    const key = (await plane.people.keys.create({ name: 'root', role: 'admin' }, plane.now())).key
    const client = new Client({ name: 'bursts', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }))
    cleanup.push(() => client.close())

    // The fixture writes all its reports and the result at once: they arrive together, every time.
    for (const count of [1, 5, 40]) {
      const heard: Progress[] = []
      const result = await client.callTool({ name: 'fix_report', arguments: { count } }, undefined, { onprogress: (p) => heard.push(p) })
      expect(result).toMatchObject({ content: [{ type: 'text', text: `reported ${count}` }] })
      expect(heard).toEqual(Array.from({ length: count }, (_, i) => ({ progress: i + 1, total: count })))
    }
    // Through the library API too.
    const direct: number[] = []
    expect(await plane.invoke('fix_report', { count: 3 }, { caller: admin, onProgress: (p) => direct.push(p.progress) })).toMatchObject({ ok: true })
    expect(direct).toEqual([1, 2, 3])
  })
})
