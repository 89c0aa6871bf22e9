import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { databases, waitFor } from '../../test-support/databases.js'
import { openTestPlane } from '../../test-support/fixtures.js'
import type { Skillplane } from '../../agents/index.js'
import { startHttpServer, type HttpServer } from '../http/start-http-server.js'

const LOW_LEVEL = join(import.meta.dirname, '../../sources/mcp/fixtures/low-level-resource-server.mjs')

describe.each(databases)('an imported server that answers only some of the resource lists ($name)', (database) => {
  let plane: Skillplane
  let server: HttpServer
  let client: Client

  beforeAll(async () => {
    plane = await openTestPlane(database, {
      mcpServers: [
        // Declares `resources` (and no tools), lists resources, answers -32601 to resources/templates/list.
        { name: 'plain', command: process.execPath, args: [LOW_LEVEL], env: { LISTS: 'resources' } },
        // Lists templates, answers -32601 to resources/list.
        { name: 'paged', command: process.execPath, args: [LOW_LEVEL], env: { LISTS: 'templates' } },
        // Its resources/list answers -32601 on its second page: a failure, not "no resources".
        { name: 'broken', command: process.execPath, args: [LOW_LEVEL], env: { LISTS: 'resources', PAGED: 'broken' } },
        // Lists and calls a tool without declaring `tools`: asked anyway.
        { name: 'quiet', command: process.execPath, args: [LOW_LEVEL], env: { LISTS: 'none', TOOLS: 'undeclared' } },
      ],
    })
    server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    const { key } = await plane.people.keys.create({ name: 'root', role: 'admin' }, plane.now())
    client = new Client({ name: 'resource-browser', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }))
  })
  afterAll(async () => {
    await client?.close().catch(() => {})
    await server?.close()
    await plane?.close()
  })

  it('connects, lists what it answers (the other list is empty, not a failure) and serves its resources on /mcp', async () => {
    // Settled either way: a server that can't be listed is down (retrying), not connecting forever.
    const states = () => plane.sources.mcpServers().map((s) => s.state)
    await waitFor(() => states().every((state) => state === 'connected' || state === 'down'))
    expect(plane.sources.mcpServers().map(({ name, state, reason, skills, problems }) => ({ name, state, reason, skills, problems }))).toEqual([
      { name: 'plain', state: 'connected', reason: null, skills: ['plain_read_resource'], problems: [] },
      { name: 'paged', state: 'connected', reason: null, skills: ['paged_read_resource'], problems: [] },
      // The listing failed (the first page is not the whole list): a problem shown, not an empty list.
      {
        name: 'broken',
        state: 'connected',
        reason: null,
        skills: ['broken_read_resource'],
        problems: [expect.stringMatching(/^listing resources failed: .*-32601/)],
      },
      { name: 'quiet', state: 'connected', reason: null, skills: ['quiet_echo', 'quiet_read_resource'], problems: [] },
    ])

    await waitFor(async () => (await client.listResources()).resources.some((r) => r.uri === 'low://readme'))
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(['low://readme'])
    expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toEqual(['low://pages/{n}'])
    const listed = await client.readResource({ uri: 'low://readme' })
    expect(listed.contents).toEqual([{ uri: 'low://readme', mimeType: 'text/plain', text: 'low-level read of low://readme' }])
    const matched = await client.readResource({ uri: 'low://pages/7' })
    expect(matched.contents).toEqual([{ uri: 'low://pages/7', mimeType: 'text/plain', text: 'low-level read of low://pages/7' }])

    // Each read is a call, audited.
    for (const [skill, read] of [
      ['plain_read_resource', listed],
      ['paged_read_resource', matched],
    ] as const) {
      const rows = (await plane.audit.query({ skill, limit: 5 })).items
      expect(rows.map((r) => [r.callId, r.status])).toEqual([[read._meta!['skillplane/callId'], 'ok']])
    }
  })
})
