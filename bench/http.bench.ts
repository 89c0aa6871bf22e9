import { spawn } from 'node:child_process'
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { serve, type ServerType } from '@hono/node-server'
import { Hono } from 'hono'
import { startHttpServer } from '../src/surfaces/http/index.js'
import { verdict, type BenchSection } from './section.js'
import { NOOP_KEY, openBenchPlane, round, sumCounts } from './support.js'

export interface HttpBenchOptions {
  connections?: number
  warmupSeconds?: number
  durationSeconds?: number
}

export interface LoadFigures {
  requestsPerSecond: number
  requests: number
  latencyP50Ms: number
  latencyP99Ms: number
}

export interface HttpBenchResult {
  connections: number
  durationSeconds: number
  skillplane: LoadFigures
  bare: LoadFigures
  /** Skillplane requests/second as a fraction of the bare route's. */
  ratio: number
  audit: {
    /** 2xx responses the load generator counted, warm-up included. */
    responses: number
    rows: number
    okRows: number
    /** Every answered call has its ok row (calls cut off when the load stops may add a few more). */
    complete: boolean
  }
}

// The subset of autocannon's --json report used here.
interface AutocannonReport {
  requests: { average: number; total: number }
  latency: { p50: number; p99: number }
  '2xx': number
  non2xx: number
  errors: number
  timeouts: number
}

const AUTOCANNON = fileURLToPath(new URL('../node_modules/.bin/autocannon', import.meta.url))
const BODY = JSON.stringify({ input: { n: 1 } })

/** Loads `url` from a separate process so the load generator doesn't share the server's event loop. */
async function load(url: string, headers: Record<string, string>, connections: number, seconds: number): Promise<AutocannonReport> {
  const args = ['-c', String(connections), '-d', String(seconds), '-m', 'POST', '-b', BODY, '-j']
  for (const [name, value] of Object.entries({ 'content-type': 'application/json', ...headers })) args.push('-H', `${name}=${value}`)
  const child = spawn(AUTOCANNON, [...args, url], { stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const [code] = (await once(child, 'close')) as [number | null]
  if (code !== 0) throw new Error(`autocannon exited with ${code}: ${stderr.trim()}`)
  const report = JSON.parse(stdout.trim().split('\n').pop() ?? '') as AutocannonReport
  if (report.non2xx > 0 || report.errors > 0 || report.timeouts > 0) {
    throw new Error(`${url}: ${report.non2xx} non-2xx responses, ${report.errors} errors, ${report.timeouts} timeouts`)
  }
  return report
}

function loadFigures(report: AutocannonReport): LoadFigures {
  return {
    requestsPerSecond: round(report.requests.average),
    requests: report.requests.total,
    latencyP50Ms: report.latency.p50,
    latencyP99Ms: report.latency.p99,
  }
}

/** The reference: a Hono route that parses the JSON body and answers an envelope. */
function startBareServer(): Promise<{ url: string; server: ServerType }> {
  const app = new Hono()
  app.post('/invoke', async (c) => {
    const body = await c.req.json<{ input?: unknown }>()
    return c.json({ ok: true, data: body.input ?? null, callId: 'bare' })
  })
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info: AddressInfo) =>
      resolve({ url: `http://127.0.0.1:${info.port}/invoke`, server }),
    )
  })
}

/** POST /api/skills/:key/invoke (auth, body checks, pipeline, SQLite audit) against the bare route. */
export async function runHttpBench(options: HttpBenchOptions = {}): Promise<HttpBenchResult> {
  const { connections = 50, warmupSeconds = 2, durationSeconds = 8 } = options
  const bench = await openBenchPlane()
  try {
    const { plane } = bench
    const { key } = await plane.people.keys.create({ name: 'bench', role: 'admin' }, plane.now())
    const auth = { authorization: `Bearer ${key}` }
    const http = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    const bare = await startBareServer()
    let planeWarmup: AutocannonReport, planeRun: AutocannonReport, bareRun: AutocannonReport
    try {
      const planeUrl = `${http.url}/api/skills/${NOOP_KEY}/invoke`
      await load(bare.url, {}, connections, warmupSeconds)
      planeWarmup = await load(planeUrl, auth, connections, warmupSeconds)
      bareRun = await load(bare.url, {}, connections, durationSeconds)
      planeRun = await load(planeUrl, auth, connections, durationSeconds)
    } finally {
      await new Promise<void>((done) => bare.server.close(() => done()))
      await http.close()
    }

    // Closing drains the audit writer, so calls cut off when the load stopped have their rows too.
    await plane.close()
    const counts = bench.auditCounts()
    const responses = planeWarmup['2xx'] + planeRun['2xx']
    const okRows = counts.ok ?? 0
    return {
      connections,
      durationSeconds,
      skillplane: loadFigures(planeRun),
      bare: loadFigures(bareRun),
      ratio: planeRun.requests.average / bareRun.requests.average,
      audit: { responses, rows: sumCounts(counts), okRows, complete: okRows >= responses },
    }
  } finally {
    await bench.close()
  }
}

const HTTP_TARGET_RATIO = 0.5
const int = (n: number) => Math.round(n).toLocaleString('en-US')

function httpReport(http: HttpBenchResult): string {
  return `\`POST /api/skills/:key/invoke\` with an admin API key (body limit, bearer auth, body checks, the
pipeline, SQLite audit) against a bare Hono route on \`@hono/node-server\` that parses the JSON body
and answers an envelope. Load from a second process: autocannon, ${http.connections} connections,
${http.durationSeconds} s each after a warm-up, on 127.0.0.1.

| route | requests/s | p50 ms | p99 ms | requests |
| --- | --- | --- | --- | --- |
| skillplane invoke | ${int(http.skillplane.requestsPerSecond)} | ${http.skillplane.latencyP50Ms} | ${http.skillplane.latencyP99Ms} | ${int(http.skillplane.requests)} |
| bare Hono route | ${int(http.bare.requestsPerSecond)} | ${http.bare.latencyP50Ms} | ${http.bare.latencyP99Ms} | ${int(http.bare.requests)} |

Skillplane ÷ bare: **${http.ratio.toFixed(2)}×** (target ≥ ${HTTP_TARGET_RATIO}×).
Audit check: ${int(http.audit.responses)} 2xx responses (warm-up included), ${int(http.audit.okRows)} ok rows of
${int(http.audit.rows)} (calls still in flight when the load generator stopped finish after it).`
}

export const httpSection: BenchSection = {
  name: 'http',
  title: 'HTTP invoke vs a bare Hono route',
  async run(log) {
    const http = await runHttpBench()
    log(`  skillplane ${int(http.skillplane.requestsPerSecond)} req/s, bare ${int(http.bare.requestsPerSecond)} req/s, ratio ${http.ratio.toFixed(2)}×`)
    log(`  audit: ${http.audit.okRows} ok rows for ${http.audit.responses} responses (${http.audit.rows} rows)`)
    return {
      targets: [
        {
          target: `HTTP invoke ≥ ${HTTP_TARGET_RATIO}× a bare Hono JSON route`,
          figure: `${http.ratio.toFixed(2)}×`,
          verdict: verdict(http.ratio >= HTTP_TARGET_RATIO),
        },
        {
          target: 'every HTTP invoke audited',
          figure: `${int(http.audit.okRows)} ok rows for ${int(http.audit.responses)} responses`,
          verdict: verdict(http.audit.complete),
          fact: true,
        },
      ],
      body: httpReport(http),
    }
  },
}
