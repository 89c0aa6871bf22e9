import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { databases } from '../../test-support/databases.js'
import { openTestPlane } from '../../test-support/fixtures.js'
import { startHttpServer } from '../http/start-http-server.js'

const [sqlite] = databases
const FIXTURE = join(import.meta.dirname, '../../sources/mcp/fixtures/test-mcp-server.mjs')
// tools/list read without the SDK's own schema, which rebuilds every object in its key order.
const RawToolList = z.looseObject({ tools: z.array(z.record(z.string(), z.unknown())), nextCursor: z.string().optional() })
type RawTool = z.infer<typeof RawToolList>['tools'][number]

async function rawTools(client: Client): Promise<RawTool[]> {
  const tools: RawTool[] = []
  let cursor: string | undefined
  do {
    const page = await client.request({ method: 'tools/list', params: cursor ? { cursor } : {} }, RawToolList)
    tools.push(...page.tools)
    cursor = page.nextCursor
  } while (cursor)
  return tools
}

describe('imported tools served again at /mcp', () => {
  const cleanup: Array<() => Promise<unknown>> = []
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step().catch(() => {})
  })

  it("serves each tool's input and output schema byte for byte as its server wrote it, key order and $schema included", async () => {
    const upstream = new Client({ name: 'upstream-reader', version: '1.0.0' })
    await upstream.connect(new StdioClientTransport({ command: process.execPath, args: [FIXTURE, 'stdio'] }))
    cleanup.push(() => upstream.close())
    const original = new Map(
      (await rawTools(upstream)).map((tool) => [
        `fix_${String(tool.name)
          .replace(/([a-z])([A-Z])/g, '$1_$2')
          .toLowerCase()}`,
        tool,
      ]),
    )

    const plane = await openTestPlane(sqlite!, { mcpServers: [{ name: 'fix', command: process.execPath, args: [FIXTURE, 'stdio'] }] })
    cleanup.push(() => plane.close())
    const server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    cleanup.push(() => server.close())
    const key = (await plane.people.keys.create({ name: 'root', role: 'admin' }, plane.now())).key
    const client = new Client({ name: 'schema-reader', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }))
    cleanup.push(() => client.close())
    const served = (await rawTools(client)).filter((tool) => String(tool.name).startsWith('fix_'))

    // Every imported tool but the malformed one, each schema the same text as the server's.
    expect(served.map((tool) => tool.name).sort()).toEqual([...original.keys()].filter((name) => name !== 'fix_bad_tool').sort())
    for (const tool of served) {
      const own = original.get(String(tool.name))!
      expect(JSON.stringify(tool.inputSchema), `${tool.name} inputSchema`).toBe(JSON.stringify(own.inputSchema))
      expect(JSON.stringify(tool.outputSchema), `${tool.name} outputSchema`).toBe(JSON.stringify(own.outputSchema))
    }
    // The echo tool's schemas put $schema last and "properties" before "type": that is what came through.
    const echo = served.find((tool) => tool.name === 'fix_echo')!
    expect(Object.keys(echo.inputSchema as object)).toEqual(['properties', 'required', 'type', '$schema'])
    expect(Object.keys(echo.outputSchema as object)).toEqual(['type', 'properties', 'required', 'additionalProperties', '$schema'])
    expect(Object.keys((served.find((tool) => tool.name === 'fix_address')!.outputSchema as object) ?? {})).toEqual(['type', '$defs', 'properties', 'required'])

    // The SDK client checks structured results against the schema it was served: the call passes.
    expect(await client.callTool({ name: 'fix_echo', arguments: { text: 'hi' } })).toMatchObject({ structuredContent: { echoed: 'hi', length: 2 } })
    expect(await client.callTool({ name: 'fix_address', arguments: {} })).toMatchObject({ structuredContent: { home: { city: 'Oslo' } } })
  })
})
