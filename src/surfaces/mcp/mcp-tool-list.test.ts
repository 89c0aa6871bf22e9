import { afterEach, describe, expect, it } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Tool } from '@modelcontextprotocol/sdk/types.js'
import { databases, waitFor } from '../../test-support/databases.js'
import { admin, openTestPlane } from '../../test-support/fixtures.js'
import type { SkillplaneConfig } from '../../config/define-config.js'
import { startHttpServer, type HttpServer } from '../http/start-http-server.js'

const [sqlite] = databases

type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }>; _meta?: Record<string, unknown> }

// The Helper agent may call echo, parent_call, wipe_things and write_thing: past a threshold of 3, a large catalog.
describe('MCP tool lists of large catalogs', () => {
  const cleanup: Array<() => Promise<unknown>> = []
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step().catch(() => {})
  })

  async function setup(discovery: NonNullable<SkillplaneConfig['discovery']>) {
    const plane = await openTestPlane(sqlite!, { discovery })
    cleanup.push(() => plane.close())
    const server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    cleanup.push(() => server.close())
    const agentKey = await plane.people.keys.create({ name: 'helper-key', role: 'agent', agentId: 'helper' }, plane.now())
    return { plane, server, agentKey }
  }

  async function connect(server: HttpServer, key: string, onList?: (tools: Tool[]) => void): Promise<Client> {
    const client = new Client(
      { name: 'test-client', version: '1.0.0' },
      onList ? { listChanged: { tools: { debounceMs: 0, onChanged: (_error, tools) => tools && onList(tools) } } } : {},
    )
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }))
    cleanup.push(() => client.close())
    return client
  }

  const call = (client: Client, name: string, args: Record<string, unknown> = {}) => client.callTool({ name, arguments: args }) as Promise<ToolResult>
  const names = (tools: Tool[]) => tools.map((t) => t.name)

  it('lists a core set, adds what discover_skills finds with list_changed, and call_skill calls the rest', async () => {
    const { plane, server, agentKey } = await setup({ toolThreshold: 3, coreTools: ['parent_call'] })
    const lists: string[][] = []
    const client = await connect(server, agentKey.key, (tools) => lists.push(names(tools)))
    const listed = (await client.listTools()).tools
    expect(names(listed)).toEqual(['discover_skills', 'call_skill', 'parent_call'])
    // call_skill may run a dangerous skill of this caller's, and says so.
    expect(listed[1]).toMatchObject({ inputSchema: { required: ['key'] }, annotations: { readOnlyHint: false, destructiveHint: true } })

    const found = await call(client, 'discover_skills', { query: 'dangerous', limit: 1 })
    expect(JSON.parse(found.content[0]!.text!).results).toMatchObject([{ key: 'wipe_things' }])
    await waitFor(() => lists.length > 0)
    expect(lists.at(-1)).toEqual(['discover_skills', 'call_skill', 'parent_call', 'wipe_things'])
    // Finding it again changes nothing, so nothing is announced.
    await call(client, 'discover_skills', { query: 'select:wipe_things' })
    await new Promise((r) => setTimeout(r, 200))
    expect(lists).toHaveLength(1)

    // call_skill runs an unlisted skill through the pipeline, as a call of its tool would.
    const echoed = await call(client, 'call_skill', { key: 'echo', arguments: { message: 'via call_skill' } })
    expect(echoed.isError).toBeFalsy()
    expect(JSON.parse(echoed.content[0]!.text!)).toEqual({ message: 'via call_skill', count: 1 })
    expect(await plane.audit.get(echoed._meta!['skillplane/callId'] as string)).toMatchObject({
      skill: 'echo',
      caller: { kind: 'agent', id: agentKey.id },
      agent: 'helper',
      status: 'ok',
    })
    // So does a call of the unlisted tool by its name.
    expect(JSON.parse((await call(client, 'echo', { message: 'by name' })).content[0]!.text!)).toEqual({ message: 'by name', count: 1 })
    // A skill the agent may not call is refused and audited; bad input is the skill's own invalid_input.
    const refused = await call(client, 'call_skill', { key: 'explode' })
    expect(refused).toMatchObject({ isError: true, content: [{ text: 'not_found: no skill with key "explode"' }] })
    expect(await plane.audit.get(refused._meta!['skillplane/callId'] as string)).toMatchObject({ skill: 'explode', error: { code: 'not_found' } })
    expect(await call(client, 'call_skill', { key: 'echo', arguments: { message: '' } })).toMatchObject({
      isError: true,
      content: [{ text: expect.stringMatching(/^invalid_input: .*\/message/) }],
    })
    // Approvals work as for the tool itself: calling again with the same arguments resumes the request.
    const asked = await call(client, 'call_skill', { key: 'write_thing', arguments: { value: 'v1' } })
    expect(asked).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('call this tool again with exactly the same arguments') }] })
    const again = await call(client, 'call_skill', { key: 'write_thing', arguments: { value: 'v1' } })
    expect(again._meta!['skillplane/approvalId']).toBe(asked._meta!['skillplane/approvalId'])
    // Malformed call_skill arguments never reach a skill.
    expect(await call(client, 'call_skill', { arguments: {} })).toMatchObject({
      isError: true,
      content: [{ text: 'invalid_input: call_skill needs key, the key of the skill to call' }],
      _meta: { 'skillplane/error': 'invalid_input' },
    })
    expect(await call(client, 'call_skill', { key: 'echo', arguments: 'hi' })).toMatchObject({
      content: [{ text: "invalid_input: call_skill's arguments must be an object of the skill's arguments" }],
    })
    expect(await call(client, 'call_skill', { key: 'echo', input: {} })).toMatchObject({
      content: [{ text: 'invalid_input: call_skill takes key, arguments and edge_id, not input' }],
    })

    // A new session of the same key starts with its most used skills (echo, called ok twice) beside the core set.
    await waitFor(async () => (await plane.audit.query({ caller: agentKey.id, skill: 'echo', status: 'ok', limit: 5 })).items.length === 2)
    const next = await connect(server, agentKey.key)
    expect(names((await next.listTools()).tools)).toEqual(['discover_skills', 'call_skill', 'echo', 'parent_call'])
  })

  it('lists every callable tool up to the threshold, without discover_skills or call_skill', async () => {
    const { server, agentKey } = await setup({ toolThreshold: 4 })
    const client = await connect(server, agentKey.key)
    expect(names((await client.listTools()).tools)).toEqual(['echo', 'parent_call', 'wipe_things', 'write_thing'])
    // call_skill is no tool here: the pipeline answers for it like for any unknown name.
    expect(await call(client, 'call_skill', { key: 'echo', arguments: { message: 'x' } })).toMatchObject({
      isError: true,
      content: [{ text: 'not_found: no skill with key "call_skill"' }],
    })
  })

  it('lists every callable tool to a caller denied discover_skills, which could find nothing', async () => {
    const { plane, server, agentKey } = await setup({ toolThreshold: 3 })
    await plane.policies.set({ skill: 'discover_skills', level: 'agent', subject: 'helper', decision: 'DENY' }, admin, plane.now())
    const client = await connect(server, agentKey.key)
    expect(names((await client.listTools()).tools)).toEqual(['echo', 'parent_call', 'wipe_things', 'write_thing'])
  })
})
