import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import pg from 'pg'
import pino from 'pino'
import { WebSocketServer, type WebSocket } from 'ws'
import { createSkillplane, defineSkill, type Skillplane } from '../src/index.js'
import { startHttpServer } from '../src/surfaces/http/index.js'
import { createTestDatabase, startTempPostgres } from '../src/test-support/postgres.js'
import { verdict, type BenchSection } from './section.js'
import { BENCH_CALLER, int, median, times, waitUntil } from './support.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const MAIN = join(ROOT, 'dist/surfaces/cli/main.js')
const FLEET_CHILD = fileURLToPath(new URL('./edge-fleet.child.mjs', import.meta.url))
// Heartbeats far more often than the default 10 s, so that a few seconds hold enough rounds to
// measure; not so often that a busy machine makes an edge miss one (it would be dropped).
const FLEET = { edges: 100, heartbeatMs: 1_000, beatsPerWindow: 5, windows: 2 }
// The manager's own tick (src/plane/liveness.ts), which reloads the edge directory, and the edges' default heartbeat.
const LIVENESS_MS = 5_000
const DEFAULT_HEARTBEAT_MS = 10_000
const FLEET_DEADLINE_MS = 15 * 60_000

export interface EdgeModeFigures {
  inFlight: number
  /** Medians over the alternating rounds. */
  skillplanePerSecond: number
  barePerSecond: number
  /** skillplane ÷ bare, the median of the rounds' ratios (each round measures both sides back to back). */
  ratio: number
  ratioMin: number
  rounds: number
  /** CPU time per call (user + system), all rounds together: the part of the figures that load barely moves. */
  cpu: TunnelCpu
  /** The same pipeline running a manager-scope no-op: its audit commits are the bulk of an edge call. */
  pipelinePerSecond: number
  /** Pipeline and bare echo one after the other (their times added): what the edge call would cost with a free tunnel. */
  floorPerSecond: number
  /** skillplane ÷ that floor. */
  ofFloor: number
}

export interface TunnelCpu {
  /** This process (the manager, and the caller in it) per edge call. */
  managerMicros: number
  /** The `skillplane edge` process per edge call (from /proc, in 10 ms ticks: summed over every round). */
  edgeMicros: number
  /** This process per bare echo call (the ws server and its caller). */
  bareServerMicros: number
  /** The echoing child per bare call. */
  bareEchoMicros: number
}

/** A call made on another manager, relayed through the database to the one holding the edge, against the same call on the holder. */
export interface RelayFigures {
  /** Medians of the rounds' means, ms per call. */
  relayedMs: number
  localMs: number
  /** relayed ÷ local per round (each round measures both, alternating which goes first). */
  ratioMin: number
  ratioMedian: number
  rounds: number
  /** This process's CPU (both managers live in it) per relayed and per local call, µs. */
  relayedCpuMicros: number
  localCpuMicros: number
}

/** The manager of the many-edges measurement in one state: memory after GC, CPU per heartbeat round. */
export interface FleetState {
  heapUsed: number
  /** V8's heap as committed: it shrinks when the process idles and grows in bursts, by tens of MB. */
  heapTotal: number
  rss: number
  cpuMicrosPerBeat: number
  /** CPU of one reload of the edge directory, as the manager's own tick does every 5 s. */
  reloadMicros: number
  /** Edges that reconnected during the windows (a missed heartbeat): 0 for a clean measurement. */
  reconnected: number
}

export interface FleetFigures {
  edges: number
  heartbeatMs: number
  beatsPerWindow: number
  windows: number
  /** Time for all but the first edge to connect (one process for all of them). */
  connectSeconds: number
  online: number
  calledEdge: string
  callMs: number
  none: FleetState
  one: FleetState
  all: FleetState
  /** Each edge's share of the difference to the manager with no edge. */
  perEdge: EdgeShare
  /** The same against the manager with one edge: what one more edge costs, one-time costs left out. */
  perEdgeAfterFirst: EdgeShare
  /** The CPU figures taken apart, from the steps none → one (fixed) and one → all (per edge). */
  cpu: {
    /** Holding any edge at all, whatever the heartbeat (on SQLite, looking for relayed calls every 50 ms). */
    holdingMicrosPerSecond: number
    /** One more edge per heartbeat round, less its share of the directory reload. */
    heartbeatMicrosPerEdge: number
    /** One more edge in each reload of the edge directory (every 5 s, whatever the heartbeat). */
    reloadMicrosPerEdge: number
    /** All of it for this many edges at the default heartbeat, in % of one core. */
    defaultHeartbeatCorePercent: number
  }
}

export interface EdgeShare {
  heapKB: number
  rssKB: number
  /** RSS less V8's committed heap: sockets, buffers and native memory, without V8's resizing. */
  outsideHeapKB: number
  cpuMicrosPerBeat: number
}

export interface EdgeBenchResult {
  calls: number
  sequential: EdgeModeFigures
  concurrent: EdgeModeFigures
  /** Relayed through SQLite (another manager on the same file, as `skillplane invoke --edge` is). */
  relayedMs: number
  localMs: number
  sqliteRelay: RelayFigures
  /** Relayed through PostgreSQL between two managers, or why it was not measured. */
  postgres: RelayFigures | { skipped: string }
  /** Or why it failed this time (the figures above are kept). */
  fleet: FleetFigures | { failed: string }
}

async function rate(call: (n: number) => Promise<unknown>, calls: number, inFlight: number): Promise<number> {
  const start = performance.now()
  let next = 0
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next++ < calls) await call(next)
    }),
  )
  return (calls / (performance.now() - start)) * 1000
}

// /proc/PID/stat's utime and stime are in clock ticks (USER_HZ, 100 on Linux).
const TICK_MICROS = 10_000

/** User + system CPU a child process has used, µs (Linux /proc; 0 elsewhere). */
function childCpuMicros(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) * TICK_MICROS
  } catch {
    return 0
  }
}

function ownCpuMicros(): number {
  const { user, system } = process.cpuUsage()
  return user + system
}

/** Wait for a condition itself (a deadline of minutes: a loaded machine is slow, not broken), and say how long it took. */
async function waitFor(check: () => boolean, what: string, log: (line: string) => void): Promise<void> {
  const ms = await waitUntil(check, what, 300_000)
  log(`  ${what}: after ${(ms / 1000).toFixed(2)} s`)
}

/** The bare reference: a ws server in this process and an echoing client process, the edge's topology. */
async function startBareEcho(): Promise<{ call(n: number): Promise<unknown>; pid: number | undefined; close(): Promise<void> }> {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' })
  await new Promise((r) => wss.once('listening', r))
  const url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`
  const pending = new Map<string, (data: unknown) => void>()
  const connected = new Promise<WebSocket>((resolve) =>
    wss.once('connection', (ws) => {
      ws.on('message', (data) => {
        const result = JSON.parse(String(data)) as { id: string; data: unknown }
        pending.get(result.id)?.(result.data)
        pending.delete(result.id)
      })
      resolve(ws)
    }),
  )
  const child = spawn(process.execPath, [fileURLToPath(new URL('./edge-echo.child.mjs', import.meta.url)), url], { stdio: 'ignore' })
  const socket = await connected
  let id = 0
  return {
    pid: child.pid,
    call: (n) =>
      new Promise((resolve) => {
        const callId = String(++id)
        pending.set(callId, resolve)
        socket.send(JSON.stringify({ type: 'call', id: callId, key: 'edge_noop', input: { n }, timeoutMs: 30_000 }))
      }),
    close: async () => {
      child.kill()
      await new Promise((r) => wss.close(r))
    },
  }
}

function writeEdgeConfig(dir: string): string {
  const config = join(dir, 'edge.config.mjs')
  writeFileSync(
    config,
    `import { defineSkill } from ${JSON.stringify(join(ROOT, 'dist/index.js'))}\n` +
      `export default { skills: [defineSkill({ key: 'edge_noop', description: 'Returns its input', class: 'safe', scope: 'host', ` +
      `input: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] }, run: (input) => ({ n: input.n }) })] }\n`,
  )
  return config
}

/** A real `skillplane edge` process offering the config's no-op, connected to one manager. */
function spawnEdge(config: string, dataDir: string, manager: string, token: string): ChildProcess {
  // SKILLPLANE_BENCH_EDGE_PROFILE=DIR: the edge writes a CPU profile there when it stops.
  const profile = process.env.SKILLPLANE_BENCH_EDGE_PROFILE
  return spawn(
    process.execPath,
    [
      ...(profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : []),
      MAIN,
      '--config',
      config,
      '--data-dir',
      dataDir,
      'edge',
      '--manager',
      manager,
      '--log-level',
      'error',
    ],
    {
      env: { ...process.env, SKILLPLANE_EDGE_TOKEN: token },
      stdio: 'ignore',
    },
  )
}

/** Mean ms of n sequential calls of the no-op on this edge, made on this manager. */
async function timeCalls(target: Skillplane, edgeId: string, n: number): Promise<number> {
  const start = performance.now()
  for (let i = 0; i < n; i++) {
    const envelope = await target.invoke('edge_noop', { n: i }, { caller: BENCH_CALLER, edgeId })
    if (!envelope.ok) throw new Error(`edge call failed: ${JSON.stringify(envelope.error)}`)
  }
  return (performance.now() - start) / n
}

/** Relayed calls (made on `remote`) against local ones (on `holder`), in alternating rounds of n sequential calls a side. */
async function relayRounds(
  remote: Skillplane,
  holder: Skillplane,
  edgeId: string,
  n: number,
  rounds: number,
  log: (line: string) => void,
): Promise<RelayFigures> {
  await timeCalls(remote, edgeId, Math.ceil(n / 4))
  await timeCalls(holder, edgeId, Math.ceil(n / 4))
  const relayed: number[] = []
  const local: number[] = []
  const cpu = { relayed: 0, local: 0 }
  const side = async (target: Skillplane, into: number[], key: 'relayed' | 'local') => {
    const before = ownCpuMicros()
    into.push(await timeCalls(target, edgeId, n))
    cpu[key] += ownCpuMicros() - before
  }
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      await side(remote, relayed, 'relayed')
      await side(holder, local, 'local')
    } else {
      await side(holder, local, 'local')
      await side(remote, relayed, 'relayed')
    }
    log(`  relay round ${round + 1}: relayed ${relayed[round]!.toFixed(2)} ms, same manager ${local[round]!.toFixed(2)} ms`)
  }
  const ratios = relayed.map((r, i) => r / local[i]!)
  return {
    relayedMs: median(relayed),
    localMs: median(local),
    ratioMin: Math.min(...ratios),
    ratioMedian: median(ratios),
    rounds,
    relayedCpuMicros: cpu.relayed / (n * rounds),
    localCpuMicros: cpu.local / (n * rounds),
  }
}

/** A host-scope no-op skill through the whole pipeline to a real `skillplane edge` process, against a bare ws echo. */
async function runTunnel(
  dir: string,
  config: string,
  calls: number,
  rounds: number,
  log: (line: string) => void,
): Promise<Omit<EdgeBenchResult, 'postgres' | 'fleet'>> {
  const managerNoop = defineSkill({
    key: 'manager_noop',
    description: 'Returns its input, on the manager',
    class: 'safe',
    input: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
    run: (input) => ({ n: (input as { n: number }).n }),
  })
  const plane = await createSkillplane({ config: { skills: [managerNoop] }, dataDir: join(dir, 'data'), logger: pino({ level: 'silent' }), sync: true })
  const http = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
  const enrolled = await plane.sources.edges.enroll({ name: 'bench' }, BENCH_CALLER)
  if (!enrolled.ok) throw new Error(enrolled.message)
  const edge = spawnEdge(config, join(dir, 'edge'), http.url, enrolled.token)
  const bare = await startBareEcho()
  let other: Skillplane | undefined
  try {
    await waitFor(() => plane.sources.edges.get('bench')?.online === true && plane.skills.get('edge_noop') !== undefined, 'the bench edge connecting', log)
    const ours = async (n: number) => {
      const envelope = await plane.invoke('edge_noop', { n }, { caller: BENCH_CALLER, edgeId: 'bench' })
      if (!envelope.ok) throw new Error(`edge call failed: ${JSON.stringify(envelope.error)}`)
    }
    const pipelineOnly = async (n: number) => {
      const envelope = await plane.invoke('manager_noop', { n }, { caller: BENCH_CALLER })
      if (!envelope.ok) throw new Error(`manager call failed: ${JSON.stringify(envelope.error)}`)
    }
    // Rate and CPU of one side's round: this process's CPU, and the child's that answers it.
    const measure = async (call: (n: number) => Promise<unknown>, n: number, inFlight: number, child: number | undefined) => {
      const [own, theirs] = [ownCpuMicros(), childCpuMicros(child)]
      const perSecond = await rate(call, n, inFlight)
      return { perSecond, own: ownCpuMicros() - own, child: childCpuMicros(child) - theirs }
    }
    const mode = async (inFlight: number): Promise<EdgeModeFigures> => {
      await rate(bare.call, 300, inFlight)
      await rate(ours, 300, inFlight)
      await rate(pipelineOnly, 300, inFlight)
      const perRound = Math.round(calls / rounds)
      const ourRates: number[] = []
      const bareRates: number[] = []
      const pipelineRates: number[] = []
      const ratios: number[] = []
      const cpu = { manager: 0, edge: 0, bareServer: 0, bareEcho: 0 }
      for (let round = 0; round < rounds; round++) {
        // Alternate which side goes first, so neither always gets the machine in the same state.
        const bareFirst = round % 2 === 0
        const first = bareFirst ? await measure(bare.call, perRound, inFlight, bare.pid) : await measure(ours, perRound, inFlight, edge.pid)
        const second = bareFirst ? await measure(ours, perRound, inFlight, edge.pid) : await measure(bare.call, perRound, inFlight, bare.pid)
        const [b, o] = bareFirst ? [first, second] : [second, first]
        bareRates.push(b.perSecond)
        ourRates.push(o.perSecond)
        ratios.push(o.perSecond / b.perSecond)
        cpu.manager += o.own
        cpu.edge += o.child
        cpu.bareServer += b.own
        cpu.bareEcho += b.child
        pipelineRates.push(await rate(pipelineOnly, perRound, inFlight))
        log(
          `  ${inFlight} in flight, round ${round + 1}: skillplane ${Math.round(o.perSecond)}/s, bare ${Math.round(b.perSecond)}/s, ${(o.perSecond / b.perSecond).toFixed(3)}×`,
        )
      }
      const total = perRound * rounds
      const [skillplanePerSecond, barePerSecond, pipelinePerSecond] = [median(ourRates), median(bareRates), median(pipelineRates)]
      const floorPerSecond = 1 / (1 / pipelinePerSecond + 1 / barePerSecond)
      return {
        inFlight,
        skillplanePerSecond,
        barePerSecond,
        ratio: median(ratios),
        ratioMin: Math.min(...ratios),
        rounds,
        cpu: {
          managerMicros: cpu.manager / total,
          edgeMicros: cpu.edge / total,
          bareServerMicros: cpu.bareServer / total,
          bareEchoMicros: cpu.bareEcho / total,
        },
        pipelinePerSecond,
        floorPerSecond,
        ofFloor: skillplanePerSecond / floorPerSecond,
      }
    }
    const sequential = await mode(1)
    const concurrent = await mode(16)
    // Another manager on the same SQLite file (what `skillplane invoke --edge` is): its calls are relayed.
    other = await createSkillplane({ config: {}, dataDir: join(dir, 'data'), logger: pino({ level: 'silent' }) })
    const remote = other
    await waitFor(() => remote.sources.edges.get('bench')?.online === true, 'the edge seen from the second manager (SQLite)', log)
    const sqliteRelay = await relayRounds(remote, plane, 'bench', 40, rounds, log)
    return { calls, sequential, concurrent, relayedMs: sqliteRelay.relayedMs, localMs: sqliteRelay.localMs, sqliteRelay }
  } finally {
    edge.kill()
    await other?.close()
    await bare.close()
    await http.close()
    await plane.close()
  }
}

/** A fresh PostgreSQL database found as the tests find one (SKILLPLANE_TEST_DATABASE_URL, else a temporary cluster), or why there is none. */
async function openPostgres(): Promise<{ url: string; close(): Promise<void> } | { skipped: string }> {
  const serverUrl = process.env.SKILLPLANE_TEST_DATABASE_URL
  if (serverUrl) {
    let url: string
    try {
      url = await createTestDatabase(serverUrl)
    } catch (error) {
      return { skipped: `the server at SKILLPLANE_TEST_DATABASE_URL did not take a new database: ${(error as Error).message}` }
    }
    return { url, close: () => dropDatabase(serverUrl, new URL(url).pathname.slice(1)) }
  }
  try {
    const server = await startTempPostgres()
    if (!server)
      return {
        skipped:
          'no PostgreSQL: no initdb on PATH or in /usr/lib/postgresql (or no postgres user to run it as root), and SKILLPLANE_TEST_DATABASE_URL is not set',
      }
    return { url: server.url, close: async () => server.stop() }
  } catch (error) {
    return { skipped: `a temporary PostgreSQL did not start: ${(error as Error).message}` }
  }
}

async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl })
  await client.connect()
  try {
    await client.query(`drop database if exists ${name}`)
  } finally {
    await client.end()
  }
}

/** Two managers on one PostgreSQL database, the edge on the first: calls made on the second are relayed (edge_calls + NOTIFY). */
async function runPostgresRelay(dir: string, config: string, rounds: number, log: (line: string) => void): Promise<RelayFigures | { skipped: string }> {
  const database = await openPostgres()
  if ('skipped' in database) return database
  // One data dir for both: managers sharing a database share its approval secret.
  const location = { dataDir: join(dir, 'pg-data'), databaseUrl: database.url }
  let holder: Skillplane | undefined
  let caller: Skillplane | undefined
  let http: Awaited<ReturnType<typeof startHttpServer>> | undefined
  let edge: ChildProcess | undefined
  try {
    holder = await createSkillplane({ config: {}, ...location, logger: pino({ level: 'silent' }) })
    http = await startHttpServer(holder, { host: '127.0.0.1', port: 0 })
    caller = await createSkillplane({ config: {}, ...location, logger: pino({ level: 'silent' }) })
    const enrolled = await holder.sources.edges.enroll({ name: 'bench-pg' }, BENCH_CALLER)
    if (!enrolled.ok) throw new Error(enrolled.message)
    edge = spawnEdge(config, join(dir, 'pg-edge'), http.url, enrolled.token)
    const [a, b] = [holder, caller]
    await waitFor(
      () => b.sources.edges.get('bench-pg')?.managerId === a.status.managerId && b.skills.get('edge_noop') !== undefined,
      'the edge connecting to the first manager, seen from the second (PostgreSQL)',
      log,
    )
    return await relayRounds(b, a, 'bench-pg', 50, rounds, log)
  } finally {
    edge?.kill()
    await caller?.close()
    await http?.close()
    await holder?.close()
    await database.close()
  }
}

/** One manager (SQLite) in a process of its own with 100 edges connected: memory per edge and the heartbeat's CPU. */
async function runFleet(dir: string, log: (line: string) => void): Promise<FleetFigures> {
  const args = [FLEET.edges, FLEET.heartbeatMs, FLEET.beatsPerWindow, FLEET.windows].map(String)
  const started = performance.now()
  // A deadline for a child that hangs, not a wait: the child waits for each of its own conditions.
  const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--expose-gc', FLEET_CHILD, join(dir, 'fleet'), ...args], {
    timeout: FLEET_DEADLINE_MS,
  }).catch((error: Error & { killed?: boolean }) => {
    throw error.killed ? new Error(`the fleet measurement did not finish in ${FLEET_DEADLINE_MS / 60_000} min: ${error.message}`) : error
  })
  for (const line of stderr.split('\n').filter(Boolean)) log(`  ${line}`)
  log(`  fleet measured in ${((performance.now() - started) / 1000).toFixed(1)} s`)
  const raw = JSON.parse(stdout) as Omit<FleetFigures, 'perEdge' | 'perEdgeAfterFirst' | 'cpu'>
  const share = (from: FleetState, edges: number): EdgeShare => ({
    heapKB: (raw.all.heapUsed - from.heapUsed) / edges / 1024,
    rssKB: (raw.all.rss - from.rss) / edges / 1024,
    outsideHeapKB: (raw.all.rss - raw.all.heapTotal - (from.rss - from.heapTotal)) / edges / 1024,
    cpuMicrosPerBeat: (raw.all.cpuMicrosPerBeat - from.cpuMicrosPerBeat) / edges,
  })
  const perEdgeAfterFirst = share(raw.one, raw.edges - 1)
  const reloadMicrosPerEdge = (raw.all.reloadMicros - raw.one.reloadMicros) / (raw.edges - 1)
  const heartbeatMicrosPerEdge = perEdgeAfterFirst.cpuMicrosPerBeat - (reloadMicrosPerEdge * raw.heartbeatMs) / LIVENESS_MS
  const holdingMicrosPerSecond = ((raw.one.cpuMicrosPerBeat - raw.none.cpuMicrosPerBeat) * 1000) / raw.heartbeatMs
  const perSecondAtDefault =
    holdingMicrosPerSecond + raw.edges * ((heartbeatMicrosPerEdge * 1000) / DEFAULT_HEARTBEAT_MS + (reloadMicrosPerEdge * 1000) / LIVENESS_MS)
  return {
    ...raw,
    perEdge: share(raw.none, raw.edges),
    perEdgeAfterFirst,
    cpu: { holdingMicrosPerSecond, heartbeatMicrosPerEdge, reloadMicrosPerEdge, defaultHeartbeatCorePercent: perSecondAtDefault / 10_000 },
  }
}

export async function runEdgeBench(calls = 3_000, rounds = 4, log: (line: string) => void = console.error): Promise<EdgeBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'skillplane-bench-edge-'))
  try {
    const config = writeEdgeConfig(dir)
    const tunnel = await runTunnel(dir, config, calls, rounds, log)
    const postgres = await runPostgresRelay(dir, config, rounds, log)
    // The fleet's failure (an edge missing a heartbeat on an overloaded machine) loses none of the figures above.
    const fleet = await runFleet(dir, log).catch((error: Error) => ({ failed: error.message.split('\n').slice(0, 3).join(' ') }))
    return { ...tunnel, postgres, fleet }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // `tunnel [CALLS [ROUNDS]]` measures only the round trip and the SQLite relay (for profiling).
  const [part, calls, rounds] = process.argv.slice(2)
  if (part === 'tunnel') {
    const dir = mkdtempSync(join(tmpdir(), 'skillplane-bench-edge-'))
    try {
      console.log(JSON.stringify(await runTunnel(dir, writeEdgeConfig(dir), Number(calls ?? 3_000), Number(rounds ?? 4), console.error), null, 2))
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  } else console.log(JSON.stringify(await runEdgeBench(), null, 2))
}

const EDGE_TARGET_RATIO = 0.7

function relayTable(figures: RelayFigures, where: string): string {
  return `| call made on | ms per call (median) | CPU per call, both managers |
| --- | --- | --- |
| the manager holding the edge | ${figures.localMs.toFixed(2)} | ${int(figures.localCpuMicros)} µs |
| the other manager, relayed ${where} | ${figures.relayedMs.toFixed(2)} | ${int(figures.relayedCpuMicros)} µs |

Relayed ÷ same manager over ${figures.rounds} alternating rounds: median **${times(figures.ratioMedian)}**, min ${times(figures.ratioMin)}; +${(figures.relayedMs - figures.localMs).toFixed(1)} ms per call.`
}

function postgresRelay(figures: EdgeBenchResult['postgres']): string {
  if ('skipped' in figures) return `Not measured in this run: ${figures.skipped}.`
  return relayTable(figures, 'through PostgreSQL')
}

function fleetTable(fleet: FleetFigures): string {
  const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`
  const kb = (n: number) => `${n.toFixed(0)} KB`
  const state = (label: string, s: FleetState) => `| ${label} | ${mb(s.heapUsed)} | ${mb(s.rss - s.heapTotal)} | ${mb(s.rss)} | ${int(s.cpuMicrosPerBeat)} µs |`
  const share = (label: string, p: EdgeShare) =>
    `| ${label} | ${kb(p.heapKB)} | ${kb(p.outsideHeapKB)} | ${kb(p.rssKB)} | ${p.cpuMicrosPerBeat.toFixed(0)} µs |`
  return `| manager | heap used | outside the V8 heap | RSS | CPU per heartbeat round |
| --- | --- | --- | --- | --- |
${state('no edge', fleet.none)}
${state('1 edge', fleet.one)}
${state(`${fleet.edges} edges`, fleet.all)}
${share(`**per edge** (${fleet.edges} against none)`, fleet.perEdge)}
${share(`per edge after the first (${fleet.edges} against 1)`, fleet.perEdgeAfterFirst)}`
}

function edgeReport(edge: EdgeBenchResult): string {
  const modes = [edge.sequential, edge.concurrent]
  const label = (m: EdgeModeFigures) => (m.inFlight === 1 ? 'sequential' : 'concurrent')
  return `
A host-scope no-op skill called through the whole pipeline (validation, policy, the durable
\`running\` and final audit rows) and the tunnel to a real \`skillplane edge\` process (schema
checks on both sides), against a bare \`ws\` server in the same process and an echoing ws client
process sending the same payload back: ${int(edge.calls)} calls per side in ${edge.sequential.rounds} alternating rounds (which side goes
first alternates too), each round's ratio taken on its own.

| mode | in flight | skillplane calls/s | bare ws echo calls/s | skillplane ÷ bare, median (min) | pipeline alone calls/s | pipeline + echo floor calls/s | skillplane ÷ floor |
| --- | --- | --- | --- | --- | --- | --- | --- |
${modes.map((m) => `| ${label(m)} | ${m.inFlight} | ${int(m.skillplanePerSecond)} | ${int(m.barePerSecond)} | ${times(m.ratio)} (${times(m.ratioMin)}) | ${int(m.pipelinePerSecond)} | ${int(m.floorPerSecond)} | ${times(m.ofFloor)} |`).join('\n')}

CPU time per call, all rounds together (user + system; the edge's and the echo's from /proc, in 10 ms ticks):

| mode | manager (with its caller) | \`skillplane edge\` process | bare ws server (with its caller) | echoing client |
| --- | --- | --- | --- | --- |
${modes.map((m) => `| ${label(m)} | ${int(m.cpu.managerMicros)} µs | ${int(m.cpu.edgeMicros)} µs | ${int(m.cpu.bareServerMicros)} µs | ${int(m.cpu.bareEchoMicros)} µs |`).join('\n')}

The target is out of reach while a call's two durable audit commits cost what they do: the
\`running\` row is durable before the frame leaves and the final row before the answer is returned,
so a sequential call costs at least the pipeline's time plus the echo's. The floor column adds the
two: what an edge call would cost if the tunnel, its schema checks and the edge's work were free.
Making the audit cheaper is the pipeline's work; the tunnel's own share is what "skillplane ÷ floor" leaves.
Frames sent in one turn of the event loop leave in one write on both ends (with calls in flight
together, one \`writev\` carries many frames).

Target ≥ ${EDGE_TARGET_RATIO}×: ${Math.min(edge.sequential.ratio, edge.concurrent.ratio) >= EDGE_TARGET_RATIO ? 'met' : 'not met'}.

### Across managers on SQLite

A call from another manager on the same SQLite file (as \`skillplane invoke --edge\` is) is relayed
through the \`edge_calls\` table: the holder looks for calls addressed to it every 25 ms, the caller
for its answer every 5 ms (prepared statements), ${edge.sqliteRelay.rounds} alternating rounds of 40 sequential calls a side.

${relayTable(edge.sqliteRelay, 'through SQLite')}

### Across managers on PostgreSQL

Two managers sharing one PostgreSQL database (a temporary cluster, or the server at
\`SKILLPLANE_TEST_DATABASE_URL\`, as the tests find one), the edge process connected to the first.
The same no-op called on the second manager is relayed: a row in \`edge_calls\`, the holder told
with NOTIFY, the answer written back and signalled the same way. Against the call made on the
manager holding the edge (both write their audit rows to PostgreSQL), alternating rounds of
50 sequential calls a side.

${postgresRelay(edge.postgres)}

${'failed' in edge.fleet ? `### Many edges on one manager\n\nNot measured in this run: ${edge.fleet.failed}` : fleetReport(edge.fleet)}`
}

function fleetReport(fleet: FleetFigures): string {
  const edge = { fleet }
  return `### ${edge.fleet.edges} edges on one manager

One manager (SQLite) in a fresh process of its own, measured with no edge, one, then all
${edge.fleet.edges} connected. The edges are ${edge.fleet.edges} \`EdgeAgent\`s in one child process (a \`skillplane edge\`
process holds about 90 MB, so ${edge.fleet.edges} of them would not fit a bench), each with its own enrollment
token, its own WebSocket and the skills a real edge offers (the built-in host skills and the no-op):
to the manager, ${edge.fleet.edges} ordinary edges. Memory is read after forced full collections: the heap's
live objects, and what lies outside the V8 heap (RSS less V8's committed heap: sockets, buffers,
native memory). RSS itself moves with the size V8 keeps its heap at, which shrinks while the
process idles and grows in the burst of connections by tens of MB, so its share per edge is noise;
heap used plus outside the heap is what an edge holds. CPU is the manager process's user + system
time per heartbeat round (a ping to every edge, its pong, one write of their last-seen times), the
least of ${edge.fleet.windows} windows of ${edge.fleet.beatsPerWindow} heartbeats, with \`edges.heartbeatMs\` at ${edge.fleet.heartbeatMs} ms (the default is 10 s) so that
a few seconds hold enough rounds.

${fleetTable(edge.fleet)}

Each edge holds about ${(edge.fleet.perEdge.heapKB + edge.fleet.perEdge.outsideHeapKB).toFixed(0)} KB of the manager's memory (heap used plus outside the heap;
${(edge.fleet.perEdgeAfterFirst.heapKB + edge.fleet.perEdgeAfterFirst.outsideHeapKB).toFixed(0)} KB after the first). The CPU taken apart: holding any edge at all costs the manager
${(edge.fleet.cpu.holdingMicrosPerSecond / 1000).toFixed(1)} ms per second whatever the heartbeat (the step from no edge to one: on SQLite, a manager holding
an edge looks for relayed calls every 25 ms); each further edge costs ${edge.fleet.cpu.heartbeatMicrosPerEdge.toFixed(0)} µs per heartbeat round (its ping, its pong, its share of the
last-seen write) and ${edge.fleet.cpu.reloadMicrosPerEdge.toFixed(0)} µs in each reload of the edge directory, which the manager's own tick does every
5 s. At the default 10 s heartbeat, ${edge.fleet.edges} edges would cost the manager about **${edge.fleet.cpu.defaultHeartbeatCorePercent.toFixed(2)} % of one core**.
The ${edge.fleet.edges - 1} edges after the first connected in ${edge.fleet.connectSeconds.toFixed(1)} s; with all ${edge.fleet.online} online, a call to one of them
(${edge.fleet.calledEdge}) took ${edge.fleet.callMs.toFixed(2)} ms (mean of 20). Reconnections during the windows (a missed heartbeat
would inflate the figures): ${edge.fleet.none.reconnected + edge.fleet.one.reconnected + edge.fleet.all.reconnected}.`
}

export const edgeSection: BenchSection = {
  name: 'edge',
  title: 'Edge round trip',
  async run(log) {
    const edge = await runEdgeBench(3_000, 4, log)
    for (const m of [edge.sequential, edge.concurrent])
      log(
        `  ${m.inFlight} in flight: skillplane ${int(m.skillplanePerSecond)} calls/s, bare ws ${int(m.barePerSecond)}/s, ratio median ${times(m.ratio)} (min ${times(m.ratioMin)}); CPU per call: manager ${int(m.cpu.managerMicros)} µs, edge ${int(m.cpu.edgeMicros)} µs`,
      )
    log(`  relayed through SQLite ${edge.relayedMs.toFixed(1)} ms/call, same manager ${edge.localMs.toFixed(2)} ms/call`)
    if ('skipped' in edge.postgres) log(`  relayed through PostgreSQL: skipped (${edge.postgres.skipped})`)
    else log(`  relayed through PostgreSQL ${edge.postgres.relayedMs.toFixed(2)} ms/call, same manager ${edge.postgres.localMs.toFixed(2)} ms/call`)
    const ratio = Math.min(edge.sequential.ratio, edge.concurrent.ratio)
    const figure = (m: EdgeModeFigures) =>
      `${times(m.ratio)} (min ${times(m.ratioMin)}, ${m.inFlight === 1 ? 'sequential' : `${m.inFlight} in flight`}; CPU ${int(m.cpu.managerMicros)} µs manager + ${int(m.cpu.edgeMicros)} µs edge per call, ${times(m.ofFloor)} of the pipeline + echo floor)`
    return {
      targets: [
        {
          target: `edge round trip ≥ ${EDGE_TARGET_RATIO}× a bare \`ws\` echo`,
          figure: `${figure(edge.sequential)}; ${figure(edge.concurrent)}`,
          verdict: verdict(ratio >= EDGE_TARGET_RATIO),
        },
      ],
      body: edgeReport(edge),
    }
  },
}
