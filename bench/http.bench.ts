import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { serve, type ServerType } from '@hono/node-server'
import { Hono } from 'hono'
import { startHttpServer } from '../src/surfaces/http/index.js'
import { verdict, type BenchSection } from './section.js'
import { int, median, NOOP_KEY, openBenchPlane, round, sumCounts } from './support.js'

export interface HttpBenchOptions {
  connections?: number
  warmupSeconds?: number
  /** Seconds each side is loaded per round. */
  durationSeconds?: number
  /** Alternating bare/skillplane rounds; min and median of their ratios are reported. */
  rounds?: number
}

export interface LoadFigures {
  requestsPerSecond: number
  requests: number
  latencyP50Ms: number
  latencyP99Ms: number
  /** The server process's CPU time per answered request (the load generator runs in another process). */
  cpuMicrosPerRequest: number
  /** Bytes of the answer's body, as the load generator received them. */
  bodyBytes: number
}

export interface HttpBenchResult {
  connections: number
  durationSeconds: number
  rounds: number
  /** The median round of each side. */
  skillplane: LoadFigures
  bare: LoadFigures
  /** Skillplane requests/second as a fraction of the bare route's: the median of the rounds' ratios. */
  ratio: number
  ratioMin: number
  ratioMax: number
  /** Bare CPU per request as a fraction of skillplane's, median of the rounds. */
  cpuRatio: number
  /** 1-minute load average before and after the measured rounds. */
  load: { before: number; after: number }
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
  throughput: { total: number }
  latency: { p50: number; p99: number }
  '2xx': number
  non2xx: number
  errors: number
  timeouts: number
}

interface Round {
  report: AutocannonReport
  cpuMicros: number
}

const AUTOCANNON = fileURLToPath(new URL('../node_modules/.bin/autocannon', import.meta.url))
const BODY = JSON.stringify({ input: { n: 1 } })

/** Loads `url` from a separate process so the load generator doesn't share the server's event loop or its CPU count. */
async function load(url: string, headers: Record<string, string>, connections: number, seconds: number): Promise<Round> {
  const args = ['-c', String(connections), '-d', String(seconds), '-m', 'POST', '-b', BODY, '-j']
  for (const [name, value] of Object.entries({ 'content-type': 'application/json', ...headers })) args.push('-H', `${name}=${value}`)
  const child = spawn(AUTOCANNON, [...args, url], { stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const cpu = process.cpuUsage()
  const [code] = (await once(child, 'close')) as [number | null]
  const used = process.cpuUsage(cpu)
  if (code !== 0) throw new Error(`autocannon exited with ${code}: ${stderr.trim()}`)
  const report = JSON.parse(stdout.trim().split('\n').pop() ?? '') as AutocannonReport
  if (report.non2xx > 0 || report.errors > 0 || report.timeouts > 0) {
    throw new Error(`${url}: ${report.non2xx} non-2xx responses, ${report.errors} errors, ${report.timeouts} timeouts`)
  }
  return { report, cpuMicros: (used.user + used.system) / Math.max(1, report['2xx']) }
}

function loadFigures(rounds: Round[], bodyBytes: number): LoadFigures {
  // The round with the median throughput stands for the side.
  const sorted = [...rounds].sort((a, b) => a.report.requests.average - b.report.requests.average)
  const { report } = sorted[sorted.length >> 1]!
  return {
    requestsPerSecond: round(report.requests.average),
    requests: report.requests.total,
    latencyP50Ms: report.latency.p50,
    latencyP99Ms: report.latency.p99,
    cpuMicrosPerRequest: round(median(rounds.map((r) => r.cpuMicros)), 1),
    bodyBytes,
  }
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

/**
 * The reference: a Hono route doing what any authenticated JSON endpoint does, and no more. It
 * checks the bearer key as an app that stores keys hashed would (sha256, looked up in a Map),
 * parses the JSON body, and answers an envelope of the same bytes as skillplane's (a 26-character
 * call id, like a ULID).
 */
function startBareServer(key: string): Promise<{ url: string; server: ServerType }> {
  const keys = new Map([[sha256(key), { name: 'bench', role: 'admin' }]])
  let next = 0
  const app = new Hono()
  app.post('/invoke', async (c) => {
    const token = /^Bearer +(\S+)$/i.exec(c.req.header('authorization') ?? '')?.[1]
    const caller = token === undefined ? undefined : keys.get(sha256(token))
    if (!caller) return c.json({ ok: false, error: { code: 'unauthorized', message: 'unknown API key' } }, 401)
    const body = await c.req.json<{ input?: unknown }>()
    const callId = `01BARE${String(next++).padStart(20, '0')}`
    return c.json({ ok: true, data: body.input ?? null, callId })
  })
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info: AddressInfo) =>
      resolve({ url: `http://127.0.0.1:${info.port}/invoke`, server }),
    )
  })
}

async function answerBytes(url: string, headers: Record<string, string>): Promise<number> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: BODY })
  if (!response.ok) throw new Error(`${url} answered ${response.status}`)
  return (await response.arrayBuffer()).byteLength
}

/** POST /api/skills/:key/invoke (auth, body checks, pipeline, SQLite audit) against the bare authenticated route, in alternating rounds. */
export async function runHttpBench(options: HttpBenchOptions = {}): Promise<HttpBenchResult> {
  const { connections = 50, warmupSeconds = 2, durationSeconds = 5, rounds = 3 } = options
  const bench = await openBenchPlane()
  try {
    const { plane } = bench
    const { key } = await plane.people.keys.create({ name: 'bench', role: 'admin' }, plane.now())
    const auth = { authorization: `Bearer ${key}` }
    const http = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    const bare = await startBareServer(key)
    const planeUrl = `${http.url}/api/skills/${NOOP_KEY}/invoke`
    let responses = 0
    const planeRounds: Round[] = []
    const bareRounds: Round[] = []
    let bytes: { plane: number; bare: number }
    let loadBefore: number
    try {
      bytes = { plane: await answerBytes(planeUrl, auth), bare: await answerBytes(bare.url, auth) }
      if (bytes.plane !== bytes.bare) throw new Error(`the answers differ in size: skillplane ${bytes.plane} bytes, bare ${bytes.bare}`)
      await load(bare.url, auth, connections, warmupSeconds)
      responses += (await load(planeUrl, auth, connections, warmupSeconds)).report['2xx']
      loadBefore = loadavg()[0]!
      // Alternating the sides spreads the machine's noise over both.
      for (let i = 0; i < rounds; i++) {
        bareRounds.push(await load(bare.url, auth, connections, durationSeconds))
        const planeRound = await load(planeUrl, auth, connections, durationSeconds)
        responses += planeRound.report['2xx']
        planeRounds.push(planeRound)
      }
    } finally {
      await new Promise<void>((done) => bare.server.close(() => done()))
      await http.close()
    }
    const loadAfter = loadavg()[0]!

    // Closing drains the audit writer, so calls cut off when the load stopped have their rows too.
    await plane.close()
    const counts = bench.auditCounts()
    const okRows = counts.ok ?? 0
    const ratios = planeRounds.map((p, i) => p.report.requests.average / bareRounds[i]!.report.requests.average)
    return {
      connections,
      durationSeconds,
      rounds,
      skillplane: loadFigures(planeRounds, bytes.plane),
      bare: loadFigures(bareRounds, bytes.bare),
      ratio: median(ratios),
      ratioMin: Math.min(...ratios),
      ratioMax: Math.max(...ratios),
      cpuRatio: median(bareRounds.map((b, i) => b.cpuMicros / planeRounds[i]!.cpuMicros)),
      load: { before: round(loadBefore, 2), after: round(loadAfter, 2) },
      audit: { responses, rows: sumCounts(counts), okRows, complete: okRows >= responses },
    }
  } finally {
    await bench.close()
  }
}

const HTTP_TARGET_RATIO = 0.5

function httpReport(http: HttpBenchResult): string {
  return `\`POST /api/skills/:key/invoke\` with an admin API key (body limit, bearer auth, body checks, the
pipeline, SQLite audit) against a bare Hono route on \`@hono/node-server\` that does what any
authenticated JSON endpoint does: it checks the same bearer key the way an app storing keys hashed
would (sha256, looked up in a Map), parses the JSON body and answers an envelope of the same bytes
(${http.skillplane.bodyBytes} and ${http.bare.bodyBytes}). Load from a second process: autocannon, ${http.connections} connections, ${http.rounds}
alternating rounds of ${http.durationSeconds} s a side after a warm-up, on 127.0.0.1; load average ${http.load.before} before, ${http.load.after} after.
CPU is the server process's time per answered request (the load generator's is not in it).

| route | requests/s (median round) | p50 ms | p99 ms | requests | CPU µs/request |
| --- | --- | --- | --- | --- | --- |
| skillplane invoke | ${int(http.skillplane.requestsPerSecond)} | ${http.skillplane.latencyP50Ms} | ${http.skillplane.latencyP99Ms} | ${int(http.skillplane.requests)} | ${http.skillplane.cpuMicrosPerRequest} |
| bare Hono route | ${int(http.bare.requestsPerSecond)} | ${http.bare.latencyP50Ms} | ${http.bare.latencyP99Ms} | ${int(http.bare.requests)} | ${http.bare.cpuMicrosPerRequest} |

Skillplane ÷ bare, per round: median **${http.ratio.toFixed(2)}×**, min ${http.ratioMin.toFixed(2)}×, max ${http.ratioMax.toFixed(2)}× (target ≥ ${HTTP_TARGET_RATIO}×);
by CPU per request (bare ÷ skillplane, median): ${http.cpuRatio.toFixed(2)}×.
Audit check: ${int(http.audit.responses)} 2xx responses (warm-up included), ${int(http.audit.okRows)} ok rows of
${int(http.audit.rows)} (calls still in flight when the load generator stopped finish after it).`
}

export const httpSection: BenchSection = {
  name: 'http',
  title: 'HTTP invoke vs a bare Hono route',
  async run(log) {
    const http = await runHttpBench()
    log(
      `  skillplane ${int(http.skillplane.requestsPerSecond)} req/s, bare ${int(http.bare.requestsPerSecond)} req/s, ratio median ${http.ratio.toFixed(2)}× ` +
        `(min ${http.ratioMin.toFixed(2)}×); CPU µs/request ${http.skillplane.cpuMicrosPerRequest} vs ${http.bare.cpuMicrosPerRequest}`,
    )
    log(`  audit: ${http.audit.okRows} ok rows for ${http.audit.responses} responses (${http.audit.rows} rows)`)
    return {
      targets: [
        {
          target: `HTTP invoke ≥ ${HTTP_TARGET_RATIO}× a bare Hono JSON route (same bearer check, same bytes)`,
          figure:
            `${http.ratio.toFixed(2)}× median, ${http.ratioMin.toFixed(2)}× min of ${http.rounds} alternating rounds; ` +
            `CPU ${http.skillplane.cpuMicrosPerRequest} vs ${http.bare.cpuMicrosPerRequest} µs/request (${http.cpuRatio.toFixed(2)}×)`,
          // Met in throughput and in CPU per request: on a loaded machine the rounds' ratios swing, CPU barely does.
          verdict: verdict(http.ratio >= HTTP_TARGET_RATIO && http.cpuRatio >= HTTP_TARGET_RATIO),
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
