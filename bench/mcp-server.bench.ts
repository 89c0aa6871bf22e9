import { randomUUID } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { serve, type ServerType } from '@hono/node-server'
import { Hono } from 'hono'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { startHttpServer } from '../src/surfaces/http/index.js'
import { verdict, type BenchSection } from './section.js'
import { NOOP_KEY, noopWork, openBenchPlane } from './support.js'

export interface McpServerModeFigures {
  inFlight: number
  skillplanePerSecond: number
  barePerSecond: number
  ratio: number
}

export interface McpServerBenchResult {
  calls: number
  sequential: McpServerModeFigures
  concurrent: McpServerModeFigures
}

/**
 * The reference: a bare MCP SDK server exposing the same no-op tool over the same Streamable HTTP
 * transport (stateful sessions, Hono on @hono/node-server), without auth, policy or audit.
 */
async function startBareServer(): Promise<{ url: string; close(): Promise<void> }> {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>()
  const app = new Hono()
  app.all('/mcp', async (c) => {
    const id = c.req.header('mcp-session-id')
    const existing = id ? sessions.get(id) : undefined
    if (existing) return existing.handleRequest(c.req.raw)
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => void sessions.set(sessionId, transport),
    })
    const server = new Server({ name: 'bare', version: '1.0.0' }, { capabilities: { tools: {} } })
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [{ name: NOOP_KEY, inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } }],
    }))
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      const data = await noopWork(request.params.arguments as { n: number })
      return { content: [{ type: 'text', text: JSON.stringify(data, null, 2) }], structuredContent: data }
    })
    await server.connect(transport)
    return transport.handleRequest(c.req.raw)
  })
  const server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s))
  })
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

async function connect(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1.0.0' })
  // The SDK shares one AbortSignal across requests and fetch frees each listener only at GC:
  // a signal of its own per request keeps them apart.
  const quiet: typeof fetch = (input, init) => fetch(input, init?.signal ? { ...init, signal: AbortSignal.any([init.signal]) } : init)
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers }, fetch: quiet }))
  return client
}

/** Calls per second with `inFlight` calls at a time. */
async function rate(client: Client, calls: number, inFlight: number): Promise<number> {
  const start = performance.now()
  let next = 0
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next++ < calls) {
        const result = await client.callTool({ name: NOOP_KEY, arguments: { n: next } })
        if (result.isError) throw new Error(`tools/call failed: ${JSON.stringify(result.content)}`)
      }
    }),
  )
  return (calls / (performance.now() - start)) * 1000
}

/** MCP tools/call over Streamable HTTP: skillplane's /mcp against the bare SDK server, alternating rounds. */
export async function runMcpServerBench(calls = 3_000): Promise<McpServerBenchResult> {
  const bench = await openBenchPlane()
  const http = await startHttpServer(bench.plane, { host: '127.0.0.1', port: 0 })
  const bare = await startBareServer()
  const { key } = await bench.plane.people.keys.create({ name: 'bench', role: 'admin' }, bench.plane.now())
  const ours = await connect(`${http.url}/mcp`, { authorization: `Bearer ${key}` })
  const theirs = await connect(bare.url)
  try {
    const mode = async (inFlight: number): Promise<McpServerModeFigures> => {
      await rate(theirs, 300, inFlight)
      await rate(ours, 300, inFlight)
      const ourRates: number[] = []
      const bareRates: number[] = []
      for (let round = 0; round < 4; round++) {
        bareRates.push(await rate(theirs, calls / 4, inFlight))
        ourRates.push(await rate(ours, calls / 4, inFlight))
      }
      const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length
      return { inFlight, skillplanePerSecond: mean(ourRates), barePerSecond: mean(bareRates), ratio: mean(ourRates) / mean(bareRates) }
    }
    return { calls, sequential: await mode(1), concurrent: await mode(16) }
  } finally {
    await Promise.all([ours.close(), theirs.close()])
    await Promise.all([http.close(), bare.close()])
    await bench.close()
  }
}

const MCP_SERVER_TARGET_RATIO = 0.9
const int = (n: number) => Math.round(n).toLocaleString('en-US')

export const mcpServerSection: BenchSection = {
  name: 'mcp-server',
  title: 'MCP server: tools/call over Streamable HTTP',
  async run(log) {
    const r = await runMcpServerBench()
    const modes = { sequential: r.sequential, concurrent: r.concurrent }
    for (const [mode, m] of Object.entries(modes))
      log(`  ${mode} (${m.inFlight} in flight): skillplane ${int(m.skillplanePerSecond)} calls/s, bare ${int(m.barePerSecond)}/s, ratio ${m.ratio.toFixed(2)}×`)
    return {
      targets: [
        {
          target: `MCP tools/call over Streamable HTTP ≥ ${MCP_SERVER_TARGET_RATIO}× a bare MCP SDK server`,
          figure: `${r.sequential.ratio.toFixed(2)}× sequential, ${r.concurrent.ratio.toFixed(2)}× with ${r.concurrent.inFlight} in flight`,
          verdict: verdict(Math.min(r.sequential.ratio, r.concurrent.ratio) >= MCP_SERVER_TARGET_RATIO),
        },
      ],
      body: `The MCP SDK's client calls a no-op \`safe\` skill through skillplane's \`/mcp\` (Bearer key, a
session per key, the pipeline with its two durable audit rows) and the same tool on a bare MCP SDK
server over the same transport (stateful Streamable HTTP, Hono on \`@hono/node-server\`), ${int(r.calls)}
calls per side in alternating rounds, on 127.0.0.1.

| mode | in flight | skillplane calls/s | bare calls/s | skillplane ÷ bare |
| --- | --- | --- | --- | --- |
${Object.entries(modes)
  .map(([mode, m]) => `| ${mode} | ${m.inFlight} | ${int(m.skillplanePerSecond)} | ${int(m.barePerSecond)} | ${m.ratio.toFixed(2)}× |`)
  .join('\n')}`,
    }
  },
}
