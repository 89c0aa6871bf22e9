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
import { alternateRounds, int, NOOP_KEY, noopWork, openBenchPlane, type Spread, spread } from './support.js'
import { loadAverage, measure, minMedian, roundRatios } from './per-call.js'

export interface McpServerModeFigures {
  inFlight: number
  /** Median round. */
  skillplanePerSecond: number
  barePerSecond: number
  /** skillplane ÷ bare calls/s: the median of the rounds' ratios. */
  ratio: number
  /** The same ratio over the rounds. */
  ratios: Spread
  /** CPU µs per call of this process (client and server share it; the client's part is the same on both sides), median round. */
  skillplaneCpuMicros: number
  bareCpuMicros: number
  /** skillplane ÷ bare CPU per call, over the rounds. */
  cpuRatios: Spread
  rounds: number
  /** The 1- and 5-minute load averages before and after. */
  load: { before: string; after: string }
}

export interface McpServerBenchResult {
  calls: number
  sequential: McpServerModeFigures
  concurrent: McpServerModeFigures
}

// A callId the same length as skillplane's (a ULID), so both answers carry the same bytes.
const CALL_ID = '01JBENCHBENCHBENCHBENCHBEN'

/**
 * The reference: a bare MCP SDK server exposing the same no-op tool over the same Streamable HTTP
 * transport (stateful sessions in a map, Hono on @hono/node-server), checking a bearer token and
 * answering the same result bytes (the text rendering and a callId in _meta), without policy or audit.
 */
export async function startBareServer(token: string): Promise<{ url: string; close(): Promise<void> }> {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>()
  const app = new Hono()
  app.all('/mcp', async (c) => {
    if (c.req.header('authorization') !== `Bearer ${token}`) return c.json({ error: 'unauthorized' }, 401)
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
      return { content: [{ type: 'text', text: JSON.stringify(data, null, 2) }], _meta: { 'skillplane/callId': CALL_ID } }
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

async function connect(url: string, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1.0.0' })
  // The SDK shares one AbortSignal across requests and fetch frees each listener only at GC:
  // a signal of its own per request keeps them apart.
  const quiet: typeof fetch = (input, init) => fetch(input, init?.signal ? { ...init, signal: AbortSignal.any([init.signal]) } : init)
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers }, fetch: quiet }))
  return client
}

function callOf(client: Client): () => Promise<void> {
  let n = 0
  return async () => {
    const result = await client.callTool({ name: NOOP_KEY, arguments: { n: n++ } })
    if (result.isError) throw new Error(`tools/call failed: ${JSON.stringify(result.content)}`)
  }
}

/**
 * MCP tools/call over Streamable HTTP: skillplane's /mcp against the bare SDK server, in
 * `rounds` alternating rounds of `calls / rounds` calls a side, sequentially and 16 in flight.
 */
export async function runMcpServerBench(calls = 3_000, rounds = 5): Promise<McpServerBenchResult> {
  const bench = await openBenchPlane()
  const http = await startHttpServer(bench.plane, { host: '127.0.0.1', port: 0 })
  const { key } = await bench.plane.people.keys.create({ name: 'bench', role: 'admin' }, bench.plane.now())
  const bare = await startBareServer(key)
  const ours = await connect(`${http.url}/mcp`, { authorization: `Bearer ${key}` })
  const theirs = await connect(bare.url, { authorization: `Bearer ${key}` })
  try {
    const mode = async (inFlight: number): Promise<McpServerModeFigures> => {
      const before = loadAverage()
      const bareCall = callOf(theirs)
      const ourCall = callOf(ours)
      await measure(300, inFlight, bareCall)
      await measure(300, inFlight, ourCall)
      const per = Math.round(calls / rounds)
      const r = await alternateRounds(rounds, {
        bare: () => measure(per, inFlight, bareCall),
        skillplane: () => measure(per, inFlight, ourCall),
      })
      const rate = roundRatios(r.bare, r.skillplane, (p) => p.ms)
      return {
        inFlight,
        skillplanePerSecond: 1000 / spread(r.skillplane.map((p) => p.ms)).median,
        barePerSecond: 1000 / spread(r.bare.map((p) => p.ms)).median,
        ratio: rate.median,
        ratios: rate,
        skillplaneCpuMicros: spread(r.skillplane.map((p) => p.cpuMicros)).median,
        bareCpuMicros: spread(r.bare.map((p) => p.cpuMicros)).median,
        cpuRatios: roundRatios(r.skillplane, r.bare, (p) => p.cpuMicros),
        rounds,
        load: { before, after: loadAverage() },
      }
    }
    return { calls, sequential: await mode(1), concurrent: await mode(16) }
  } finally {
    await Promise.all([ours.close(), theirs.close()])
    await Promise.all([http.close(), bare.close()])
    await bench.close()
  }
}

const MCP_SERVER_TARGET_RATIO = 0.9

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
          figure: `${r.sequential.ratio.toFixed(2)}× sequential (min ${r.sequential.ratios.min.toFixed(2)}×), ${r.concurrent.ratio.toFixed(2)}× with ${r.concurrent.inFlight} in flight (min ${r.concurrent.ratios.min.toFixed(2)}×)`,
          verdict: verdict(Math.min(r.sequential.ratio, r.concurrent.ratio) >= MCP_SERVER_TARGET_RATIO),
        },
      ],
      body: `The MCP SDK's client calls a no-op \`safe\` skill through skillplane's \`/mcp\` (Bearer key, a
session per key, the pipeline with its two durable audit rows) and the same tool on a bare MCP SDK
server over the same transport (stateful Streamable HTTP, sessions in a map, Hono on
\`@hono/node-server\`) that checks the same bearer token and answers the same bytes (the text
rendering and a callId in \`_meta\`), ${int(r.calls)} calls per side in ${r.sequential.rounds} alternating rounds, on 127.0.0.1.
Rates are the median round; ratios are per round (min and median). CPU is this process's, which
holds the client as well as the server (the client's share is the same on both sides).

| mode | in flight | skillplane calls/s | bare calls/s | skillplane ÷ bare | CPU µs/call skillplane / bare | CPU skillplane ÷ bare | load (1/5 min) |
| --- | --- | --- | --- | --- | --- | --- | --- |
${Object.entries(modes)
  .map(
    ([mode, m]) =>
      `| ${mode} | ${m.inFlight} | ${int(m.skillplanePerSecond)} | ${int(m.barePerSecond)} | ${minMedian(m.ratios)} | ${int(m.skillplaneCpuMicros)} / ${int(m.bareCpuMicros)} | ${minMedian(m.cpuRatios)} | ${m.load.before} → ${m.load.after} |`,
  )
  .join('\n')}`,
    }
  },
}
