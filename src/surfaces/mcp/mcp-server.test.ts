import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { ElicitRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js'
import { databases, tempDir, waitFor } from '../../test-support/databases.js'
import { admin, openTestPlane } from '../../test-support/fixtures.js'
import type { Skillplane } from '../../agents/index.js'
import { startHttpServer, type HttpServer } from '../http/start-http-server.js'

const ROOT = join(import.meta.dirname, '../../..')
const MAIN = join(ROOT, 'dist/surfaces/cli/main.js')
const CLI_CONFIG = join(ROOT, 'src/test-support/cli.config.ts')
const [sqlite] = databases

type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: unknown; _meta?: Record<string, unknown> }

describe('MCP server', () => {
  const cleanup: Array<() => Promise<unknown>> = []
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step().catch(() => {})
  })

  async function setup(): Promise<{ plane: Skillplane; server: HttpServer; adminKey: string; agentKey: string }> {
    const plane = await openTestPlane(sqlite!)
    cleanup.push(() => plane.close())
    const server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    cleanup.push(() => server.close())
    const adminKey = (await plane.people.keys.create({ name: 'root', role: 'admin' }, plane.now())).key
    const agentKey = (await plane.people.keys.create({ name: 'helper-key', role: 'agent', agentId: 'helper' }, plane.now())).key
    return { plane, server, adminKey, agentKey }
  }

  async function connect(server: HttpServer, key: string, options: ConstructorParameters<typeof Client>[1] = {}): Promise<Client> {
    const client = new Client({ name: 'test-client', version: '1.0.0' }, options)
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }))
    cleanup.push(() => client.close())
    return client
  }

  const call = (client: Client, name: string, args: Record<string, unknown> = {}) => client.callTool({ name, arguments: args }) as Promise<ToolResult>
  const names = (tools: Tool[]) => tools.map((t) => t.name)

  it('lists what each key may call, with schemas and annotations, and runs calls through the pipeline', async () => {
    const { plane, server, adminKey, agentKey } = await setup()
    const asAdmin = await connect(server, adminKey)
    const asAgent = await connect(server, agentKey)

    const agentTools = (await asAgent.listTools()).tools
    expect(names(agentTools)).toEqual(['echo', 'parent_call', 'wipe_things', 'write_thing'])
    const adminTools = (await asAdmin.listTools()).tools
    expect(names(adminTools)).toEqual(expect.arrayContaining(['echo', 'explode', 'json_schema_skill', 'remote_thing', 'wipe_things']))
    const byName = new Map(agentTools.map((t) => [t.name, t]))
    expect(byName.get('echo')).toMatchObject({
      annotations: { readOnlyHint: true, destructiveHint: false },
      inputSchema: { type: 'object', required: ['message'] },
      outputSchema: { type: 'object', properties: { message: { type: 'string' } } },
    })
    expect(byName.get('wipe_things')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true })
    expect(byName.get('write_thing')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false })
    // Host-scope skills take the edge to run on.
    expect(adminTools.find((t) => t.name === 'remote_thing')!.inputSchema).toMatchObject({ required: ['edge_id'], properties: { edge_id: { type: 'string' } } })

    const echoed = await call(asAgent, 'echo', { message: 'hi' })
    expect(echoed).toMatchObject({ structuredContent: { message: 'hi', count: 1 }, content: [{ type: 'text' }] })
    expect(JSON.parse(echoed.content[0]!.text!)).toEqual({ message: 'hi', count: 1 })
    const callId = echoed._meta!['skillplane/callId'] as string
    expect(await plane.audit.get(callId)).toMatchObject({ skill: 'echo', caller: { kind: 'agent' }, agent: 'helper', status: 'ok' })

    // Bad input, a failing skill, and tools this key may not call are error results naming the code.
    expect(await call(asAgent, 'echo', { message: '' })).toMatchObject({
      isError: true,
      content: [{ text: expect.stringMatching(/^invalid_input: .*\/message/) }],
    })
    expect(await call(asAdmin, 'explode')).toMatchObject({
      isError: true,
      content: [{ text: expect.stringContaining('executor_error: skill "explode" failed: the disk is on fire') }],
    })
    // A tool outside the caller's list is refused by the pipeline, and audited like any refusal.
    const hidden = await call(asAgent, 'explode')
    expect(hidden).toMatchObject({ isError: true, content: [{ text: 'not_found: no skill with key "explode"' }] })
    expect(await plane.audit.get(hidden._meta!['skillplane/callId'] as string)).toMatchObject({ skill: 'explode', error: { code: 'not_found' } })
    expect(await call(asAdmin, 'remote_thing', { edge_id: 'web-1' })).toMatchObject({
      isError: true,
      content: [{ text: 'not_found: no enrolled edge "web-1"' }],
    })
  })

  it('answers approval_required with the request and resumes it when the same call comes again', async () => {
    const { plane, server, agentKey } = await setup()
    const asAgent = await connect(server, agentKey)
    const first = await call(asAgent, 'write_thing', { value: 'v1' })
    expect(first).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('call this tool again with exactly the same arguments') }] })
    const approvalId = first._meta!['skillplane/approvalId'] as string
    expect(first.content[0]!.text).toContain(`skillplane approvals approve ${approvalId}`)
    // Asking again before the decision points at the same request instead of filing another.
    expect((await call(asAgent, 'write_thing', { value: 'v1' }))._meta).toMatchObject({ 'skillplane/approvalId': approvalId })
    expect((await plane.approvals.list({ status: 'pending', limit: 10 })).items).toHaveLength(1)
    // Other arguments are another request.
    expect((await call(asAgent, 'write_thing', { value: 'other' }))._meta!['skillplane/approvalId']).not.toBe(approvalId)

    expect(await plane.approvals.decide({ id: approvalId, caller: admin, decision: 'approve' })).toMatchObject({ ok: true })
    expect(await call(asAgent, 'write_thing', { value: 'v1' })).toMatchObject({ content: [{ text: expect.stringContaining('"stored": "v1"') }] })
    // Spent: the next identical call asks anew.
    const again = await call(asAgent, 'write_thing', { value: 'v1' })
    expect(again._meta!['skillplane/error']).toBe('approval_required')
    expect(again._meta!['skillplane/approvalId']).not.toBe(approvalId)
  })

  it('waits for the decision when the client accepts an elicitation', async () => {
    const { plane, server, agentKey } = await setup()
    const client = await connect(server, agentKey, { capabilities: { elicitation: { form: {} } } })
    const asked: string[] = []
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(String(request.params.message))
      // Someone approves shortly after the person chose to wait.
      setTimeout(async () => {
        const [pending] = (await plane.approvals.list({ status: 'pending', limit: 1 })).items
        await plane.approvals.decide({ id: pending!.id, caller: admin, decision: 'approve' })
      }, 100)
      return { action: 'accept', content: { wait: true } }
    })
    const result = await call(client, 'write_thing', { value: 'waited' })
    expect(asked).toEqual([expect.stringContaining('Wait here for an approver')])
    expect(result.isError).toBeFalsy()
    expect(result.content[0]!.text).toContain('"stored": "waited"')
  })

  it('tells clients when their tool list changes, and keeps sessions to the key that opened them', async () => {
    const { plane, server, adminKey, agentKey } = await setup()
    const lists: string[][] = []
    const asAgent = await connect(server, agentKey, {
      listChanged: { tools: { debounceMs: 0, onChanged: (_error, tools) => tools && lists.push(names(tools)) } },
    })
    await asAgent.listTools()
    await plane.policies.set({ skill: 'echo', level: 'agent', subject: 'helper', decision: 'DENY' }, admin, plane.now())
    await waitFor(() => lists.length > 0)
    expect(lists.at(-1)).toEqual(['parent_call', 'wipe_things', 'write_thing'])

    const sessionId = (asAgent.transport as StreamableHTTPClientTransport).sessionId!
    const post = (key: string | null, headers: Record<string, string> = {}) =>
      fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(key && { authorization: `Bearer ${key}` }),
          ...headers,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      })
    expect((await post(adminKey, { 'mcp-session-id': sessionId })).status).toBe(404)
    expect((await post(null, { 'mcp-session-id': sessionId })).status).toBe(401)
    expect((await post(adminKey)).status).toBe(400)
    // A body that is not JSON is a JSON-RPC parse error, not a crash or a stray session.
    const garbled = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${adminKey}` },
      body: '{"jsonrpc": "2.0", "method": ',
    })
    expect(garbled.status).toBe(400)
    expect(await garbled.json()).toMatchObject({ error: { code: -32700 } })
    expect(await asAgent.listTools()).toMatchObject({ tools: expect.any(Array) })
  })

  it('serves stdio as an agent with `skillplane mcp --agent`', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MAIN, '--config', CLI_CONFIG, '--data-dir', tempDir('skillplane-mcp-stdio-'), 'mcp', '--agent', 'helper'],
      cwd: ROOT,
      stderr: 'pipe',
    })
    const client = new Client({ name: 'stdio-test', version: '1.0.0' })
    await client.connect(transport)
    cleanup.push(() => client.close())
    expect(names((await client.listTools()).tools)).toEqual(['echo'])
    const result = await call(client, 'echo', { message: 'over stdio' })
    expect(result.isError).toBeFalsy()
    expect(JSON.parse(result.content[0]!.text!)).toEqual({ message: 'over stdio' })
  })
})
