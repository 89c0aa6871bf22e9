import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { createTestDatabase, startTempPostgres, type TempPostgres } from '../src/test-support/postgres.js'
import {
  postgresMark,
  probeCommits,
  serverFacts,
  markDelta,
  sumMarks,
  walPerCall,
  type CommitProbe,
  type PostgresMark,
  type ServerFacts,
  type WalPerCall,
} from './managers/postgres-stats.js'
import {
  MICROS_PER_TICK,
  TICKS_PER_SECOND,
  cpuStallMicros,
  hasProc,
  machineBusyTicks,
  postgresTicks,
  processTicks,
  reapedChildTicks,
  type PostgresTicks,
} from './managers/proc.js'
import { project, type Projection, type ProjectionInputs } from './managers/projection.js'
import { verdict, type BenchSection, type TargetRow, type Verdict } from './section.js'
import { FINAL_COLUMNS } from '../src/store/index.js'
import { int, median, round, spread } from './support.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const MAIN = join(ROOT, 'dist/surfaces/cli/main.js')
const AUTOCANNON = join(ROOT, 'node_modules/.bin/autocannon')
const SKILL = 'managers_noop'
const BODY = JSON.stringify({ input: { n: 1 } })
// A manager's pool (src/store/open-database.ts): the floor gets as many connections per manager.
const POOL_PER_MANAGER = 10
// Divisible by 1, 2 and 3, so every manager gets the same share of the connections.
const CONNECTIONS = 48
// Alternating rounds (1, 2, 3 managers, again and again) so that a neighbour's load falls on every
// configuration alike; each figure is the median of its rounds.
const ROUNDS = 5
const RUN_SECONDS = 2
const FLOOR_SECONDS = 2
// Commits one after another in the commit probe (pg_test_fsync's question, through PostgreSQL).
const PROBE_COMMITS = 200
// The projection gives PostgreSQL a host of this many cores; the cores it needs are shown beside it.
export const PROJECTION_POSTGRES_CORES = 4
export const PROJECTED_MANAGERS = [1, 2, 4, 8]
// Generous deadlines for a loaded machine: each failure says what it waited for.
const LISTEN_DEADLINE_MS = 120_000
const STOP_DEADLINE_MS = 30_000
const LOAD_DEADLINE_MS = 180_000
const SCRAPE_DEADLINE_MS = 30_000
export const MANAGERS_TARGET_RATIO = 1.6

/** Where CPU went during a run, in cores (1 = one core busy all along). */
export interface CpuShares {
  managers: number
  loadGenerator: number
  /** The server's backends for this database and its background processes (other databases' backends are not counted). */
  postgres: number
  /** Everything busy on the machine, other processes included. */
  machine: number
  /** Share of the run during which some runnable task waited for a CPU (Linux pressure stall information), or null. */
  waitingForCpu: number | null
}

/** CPU per audited call, µs: a configuration's rounds summed, then divided. */
export interface CpuPerCall {
  /** Each manager's CPU ÷ the calls it answered (its /metrics count), in order. */
  perManager: number[]
  /** All managers' CPU ÷ all calls. */
  managers: number
  loadGenerator: number
  /** null where the server's processes are not visible in /proc. */
  postgresBackends: number | null
  postgresBackground: number | null
}

export interface ManagersRun {
  managers: number
  /** Answered requests over all rounds. */
  requests: number
  /** Median of the rounds. */
  callsPerSecond: number
  /** Each round's calls/s ÷ the one manager's in the same round: median and least. */
  ratio: number
  ratioMin: number
  /** Each round's calls/s, in order. */
  roundRates: number[]
  /** The round with the median calls/s. */
  latencyP50Ms: number
  latencyP99Ms: number
  /** Averaged over the rounds. */
  cpu: CpuShares | null
  perCall: CpuPerCall | null
  /** WAL and commits per call: the rounds summed, then divided. */
  wal: WalPerCall
  /** 1-minute load average before the first round and after the last. */
  load: [number, number]
  /** Plain `pg` doing a call's two commits (the same upsert into a copy of audit_calls), one call after another per connection. */
  floor: Floor
}

export interface Floor {
  callsPerSecond: number
  /** CPU of this run's PostgreSQL processes and of the `pg` client process, in cores. */
  postgresCores: number | null
  clientCores: number
}

export interface ManagersAudit {
  /** 2xx responses the load generator counted, warm-ups included. */
  responses: number
  /** Answers other than 2xx, connection errors and timeouts: each one a call whose fate the check can't know. */
  failures: number
  byStatus: Record<string, number>
  rows: number
  distinctCallIds: number
  /** Responses without their ok row. */
  lost: number
  /** ok rows beyond the responses, or rows sharing a call id. */
  extra: number
  complete: boolean
}

export interface ManagersBenchFigures {
  connections: number
  rounds: number
  cores: number
  /** Where the database came from, and the settings that decide what a commit costs. */
  server: ServerFacts & { source: string }
  /** 1-minute load average when the section started and when it ended. */
  load: [number, number]
  runs: ManagersRun[]
  probe: CommitProbe
  inputs: ProjectionInputs
  /** How the WAL time per call was had. */
  walSource: string
  projections: Projection[]
  /** Cores the two-manager target needs here: two managers, and PostgreSQL and the load generator at 1.6× one manager's rate. */
  coresNeeded: number | null
  /** Why this machine can't show the target, or null where it can. */
  notMeasurable: string | null
  audit: ManagersAudit
}

export type ManagersBenchResult = ManagersBenchFigures | { skipped: string }

// The subset of autocannon's --json report used here.
interface AutocannonReport {
  duration: number
  latency: { p50: number; p99: number }
  '2xx': number
  non2xx: number
  errors: number
  timeouts: number
}

interface Manager {
  index: number
  url: string
  child: ChildProcess
}

/** Resolves with `promise`, or rejects with `cause` once `ms` have passed. */
async function within<T>(promise: Promise<T>, ms: number, cause: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(cause())), ms)
  })
  try {
    return await Promise.race([promise, deadline])
  } finally {
    clearTimeout(timer)
  }
}

/** `skillplane serve` on the shared database; resolves once it listens (with the admin key on the first start). */
async function startManager(dir: string, index: number, config: string, databaseUrl: string): Promise<Manager & { key: string | null }> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    SKILLPLANE_LOG_LEVEL: 'warn',
    // Managers sharing a database share these (docs/deployment.md); each keeps its own data dir.
    SKILLPLANE_APPROVAL_SECRET: 'a'.repeat(64),
    SKILLPLANE_SECRETS_KEY: 'b'.repeat(64),
  }
  delete env.SKILLPLANE_DATABASE_URL
  const args = [MAIN, '--config', config, '--data-dir', join(dir, `manager-${index}`), '--database-url', databaseUrl, 'serve', '--port', '0']
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  const listening = new Promise<Manager & { key: string | null }>((resolve, reject) => {
    const read = (chunk: string) => {
      out += chunk
      const url = /api\s+(http:\/\/\S+)\/api\/skills/.exec(out)?.[1]
      const key = /admin key \(shown once; store it now\): (sp_\S+)/.exec(out)?.[1] ?? null
      if (url && (key || /keys exist/.test(out))) resolve({ index, url, child, key })
    }
    child.stdout.setEncoding('utf8').on('data', read)
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (out += chunk))
    child.once('exit', (code) => reject(new Error(`manager ${index} exited (${code}) before it listened: ${out.trim()}`)))
  })
  try {
    return await within(
      listening,
      LISTEN_DEADLINE_MS,
      () => `manager ${index} did not listen within ${LISTEN_DEADLINE_MS / 1000} s; its output: ${out.trim() || '(none)'}`,
    )
  } catch (error) {
    child.kill('SIGKILL')
    throw error
  }
}

/** SIGTERM, then SIGKILL if it has not exited by the deadline; returns what happened when it was not a clean exit. */
async function stopManager(manager: Manager): Promise<string | null> {
  if (manager.child.exitCode !== null) return null
  const exited = once(manager.child, 'exit')
  manager.child.kill('SIGTERM')
  try {
    await within(exited, STOP_DEADLINE_MS, () => `manager ${manager.index} did not exit within ${STOP_DEADLINE_MS / 1000} s of SIGTERM: killed`)
    return null
  } catch (error) {
    manager.child.kill('SIGKILL')
    await exited
    return (error as Error).message
  }
}

/** Calls this manager has finished ok, from its own /metrics. */
async function finishedCalls(manager: Manager, key: string): Promise<number> {
  const response = await fetch(`${manager.url}/metrics`, {
    headers: { authorization: `Bearer ${key}` },
    signal: AbortSignal.timeout(SCRAPE_DEADLINE_MS),
  }).catch((error: Error) => {
    throw new Error(`manager ${manager.index}: /metrics did not answer within ${SCRAPE_DEADLINE_MS / 1000} s: ${error.message}`)
  })
  if (!response.ok) throw new Error(`manager ${manager.index}: /metrics answered ${response.status}`)
  const text = await response.text()
  const line = text.split('\n').find((l) => l.startsWith('skillplane_calls_total{') && l.includes(`skill="${SKILL}"`) && l.includes('status="ok"'))
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0
}

function writeConfig(dir: string): string {
  const config = join(dir, 'managers.config.mjs')
  writeFileSync(
    config,
    `import { defineSkill } from ${JSON.stringify(join(ROOT, 'dist/index.js'))}\n` +
      `export default { skills: [defineSkill({ key: '${SKILL}', description: 'Returns its input', class: 'safe', ` +
      `input: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] }, run: (input) => ({ n: input.n }) })] }\n`,
  )
  return config
}

interface CpuMark {
  managers: number[]
  children: number
  postgres: PostgresTicks | null
  machine: number
  stallMicros: number | null
  at: number
}

function cpuMark(managers: Manager[], postmaster: number | null, database: string): CpuMark | null {
  if (!hasProc()) return null
  return {
    managers: managers.map((m) => processTicks(m.child.pid!)),
    children: reapedChildTicks(),
    postgres: postmaster === null ? null : postgresTicks(postmaster, database),
    machine: machineBusyTicks(),
    stallMicros: cpuStallMicros(),
    at: performance.now(),
  }
}

function cpuShares(start: CpuMark | null, end: CpuMark | null): CpuShares | null {
  if (!start || !end) return null
  const seconds = (end.at - start.at) / 1000
  const cores = (ticks: number) => round(ticks / TICKS_PER_SECOND / seconds, 2)
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0)
  const postgres = start.postgres && end.postgres ? end.postgres.backends + end.postgres.background - start.postgres.backends - start.postgres.background : 0
  return {
    managers: cores(sum(end.managers) - sum(start.managers)),
    loadGenerator: cores(end.children - start.children),
    postgres: cores(postgres),
    machine: cores(end.machine - start.machine),
    waitingForCpu: start.stallMicros === null || end.stallMicros === null ? null : round((end.stallMicros - start.stallMicros) / 1e6 / seconds, 2),
  }
}

/** CPU ticks and calls that moved during a run, to be summed over rounds before dividing. */
interface TickDelta {
  managers: number[]
  managerCalls: number[]
  children: number
  postgres: PostgresTicks | null
  calls: number
}

function tickDelta(start: CpuMark | null, end: CpuMark | null, calls: number, managerCalls: number[]): TickDelta | null {
  if (!start || !end) return null
  return {
    managers: end.managers.map((ticks, i) => ticks - start.managers[i]!),
    managerCalls,
    children: end.children - start.children,
    postgres:
      start.postgres && end.postgres
        ? { backends: end.postgres.backends - start.postgres.backends, background: end.postgres.background - start.postgres.background }
        : null,
    calls,
  }
}

// Ticks are 10 ms: a configuration's rounds are summed before dividing, so a short round's rounding does not swing its figure.
function cpuPerCall(deltas: Array<TickDelta | null>): CpuPerCall | null {
  if (deltas.length === 0 || deltas.some((d) => d === null)) return null
  const all = deltas as TickDelta[]
  const sum = (pick: (d: TickDelta) => number) => all.reduce((total, d) => total + pick(d), 0)
  const calls = Math.max(
    1,
    sum((d) => d.calls),
  )
  const pg = all.every((d) => d.postgres !== null)
  return {
    perManager: all[0]!.managers.map(
      (_, i) =>
        (sum((d) => d.managers[i]!) * MICROS_PER_TICK) /
        Math.max(
          1,
          sum((d) => d.managerCalls[i]!),
        ),
    ),
    managers: (sum((d) => d.managers.reduce((a, b) => a + b, 0)) * MICROS_PER_TICK) / calls,
    loadGenerator: (sum((d) => d.children) * MICROS_PER_TICK) / calls,
    postgresBackends: pg ? (sum((d) => d.postgres!.backends) * MICROS_PER_TICK) / calls : null,
    postgresBackground: pg ? (sum((d) => d.postgres!.background) * MICROS_PER_TICK) / calls : null,
  }
}

interface LoadRun {
  report: AutocannonReport
  cpu: CpuShares | null
  ticks: TickDelta | null
  /** What PostgreSQL's counters moved by. */
  moved: PostgresMark
  load: [number, number]
}

interface Probe {
  key: string
  postmaster: number | null
  database: string
  timing: boolean
  client: pg.Client
}

/** `amount` requests over these managers' invoke routes from one autocannon process, connections spread round-robin as a load balancer would. */
async function drive(managers: Manager[], amount: number, probe: Probe): Promise<LoadRun> {
  const urls = managers.map((m) => `${m.url}/api/skills/${SKILL}/invoke`)
  const args = ['-c', String(CONNECTIONS), '-a', String(amount), '-m', 'POST', '-b', BODY, '-j', '-t', '30']
  for (const header of ['content-type=application/json', `authorization=Bearer ${probe.key}`]) args.push('-H', header)
  const loadBefore = loadavg()[0]!
  const callsBefore = await Promise.all(managers.map((m) => finishedCalls(m, probe.key)))
  const pgStart: PostgresMark = await postgresMark(probe.client)
  const start = cpuMark(managers, probe.postmaster, probe.database)
  const child = spawn(AUTOCANNON, [...args, ...urls], { stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const closed = once(child, 'close') as Promise<[number | null]>
  let code: number | null
  try {
    ;[code] = await within(
      closed,
      LOAD_DEADLINE_MS,
      () => `autocannon did not finish ${amount} requests over ${managers.length} manager(s) within ${LOAD_DEADLINE_MS / 1000} s: killed`,
    )
  } catch (error) {
    child.kill('SIGKILL')
    await closed
    throw error
  }
  const end = cpuMark(managers, probe.postmaster, probe.database)
  const pgEnd = await postgresMark(probe.client)
  const callsAfter = await Promise.all(managers.map((m) => finishedCalls(m, probe.key)))
  if (code !== 0) throw new Error(`autocannon exited with ${code}: ${stderr.trim()}`)
  const report = JSON.parse(stdout.trim().split('\n').pop() ?? '') as AutocannonReport
  const calls = report['2xx']
  return {
    report,
    cpu: cpuShares(start, end),
    ticks: tickDelta(
      start,
      end,
      calls,
      callsAfter.map((after, i) => after - callsBefore[i]!),
    ),
    moved: markDelta(pgStart, pgEnd),
    load: [loadBefore, loadavg()[0]!],
  }
}

/** A copy of audit_calls and the audit repository's upsert into it, with a running and a final row of a real call. */
async function floorTable(pool: pg.Pool | pg.Client): Promise<{ running: (id: string) => [string, unknown[]]; final: (id: string) => [string, unknown[]] }> {
  await pool.query('drop table if exists bench_floor_calls')
  await pool.query('create table bench_floor_calls (like audit_calls including all)')
  const template = (await pool.query(`select * from audit_calls where status = 'ok' limit 1`)).rows[0] as Record<string, unknown> | undefined
  if (!template) throw new Error('the floor needs an ok row in audit_calls to copy, and there is none: did the warm-up run?')
  const columns = Object.keys(template)
  const upsert =
    `insert into bench_floor_calls (${columns.join(', ')}) values (${columns.map((_, i) => `$${i + 1}`).join(', ')}) ` +
    `on conflict (call_id) do update set ${FINAL_COLUMNS.filter((c) => columns.includes(c))
      .map((c) => `${c} = excluded.${c}`)
      .join(', ')}`
  const runningRow: Record<string, unknown> = { ...template, status: 'running', result: null, finished_at: null, duration_ms: null }
  const values = (row: Record<string, unknown>, id: string) => columns.map((c) => (c === 'call_id' ? id : row[c]))
  return { running: (id) => [upsert, values(runningRow, id)], final: (id) => [upsert, values(template, id)] }
}

/**
 * What PostgreSQL alone allows: each call's two commits (its running row, then its final row, the
 * same upsert the audit repository runs, into a copy of audit_calls with its indexes), made by
 * `connections` callers one call after another, over a pool as large as the managers' pools together.
 */
async function measureFloor(url: string, probe: Probe, managers: number): Promise<Floor> {
  const pool = new pg.Pool({ connectionString: url, max: POOL_PER_MANAGER * managers })
  try {
    const rows = await floorTable(pool)
    let calls = 0
    const runFor = async (seconds: number) => {
      const deadline = performance.now() + seconds * 1000
      await Promise.all(
        Array.from({ length: CONNECTIONS }, async (_, worker) => {
          for (let i = 0; performance.now() < deadline; i++) {
            const id = `floor-${managers}-${seconds}-${worker}-${i}`
            await pool.query(...rows.running(id))
            await pool.query(...rows.final(id))
            calls++
          }
        }),
      )
    }
    await runFor(0.5)
    calls = 0
    const ticks = () => (probe.postmaster === null ? null : postgresTicks(probe.postmaster, probe.database))
    const startTicks = ticks()
    const startClient = process.cpuUsage()
    const started = performance.now()
    await runFor(FLOOR_SECONDS)
    const seconds = (performance.now() - started) / 1000
    const client = process.cpuUsage(startClient)
    const endTicks = ticks()
    const postgresCores =
      startTicks && endTicks
        ? round((endTicks.backends + endTicks.background - startTicks.backends - startTicks.background) / TICKS_PER_SECOND / seconds, 2)
        : null
    await pool.query('drop table bench_floor_calls')
    return { callsPerSecond: round(calls / seconds), postgresCores, clientCores: round((client.user + client.system) / 1e6 / seconds, 2) }
  } finally {
    await pool.end()
  }
}

/** One commit of one audit row at a time on one connection, with the managers idle. */
async function measureCommits(probe: Probe): Promise<CommitProbe> {
  const rows = await floorTable(probe.client)
  try {
    return await probeCommits(probe.client, PROBE_COMMITS, (i) => rows.running(`probe-${i}`), probe.timing)
  } finally {
    await probe.client.query('drop table bench_floor_calls')
  }
}

async function auditCheck(client: pg.Client, responses: number, failures: number): Promise<ManagersAudit> {
  const statuses = await client.query<{ status: string; n: string }>('select status, count(*) as n from audit_calls group by status')
  const byStatus = Object.fromEntries(statuses.rows.map((r) => [r.status, Number(r.n)]))
  const totals = await client.query<{ rows: string; ids: string }>('select count(*) as rows, count(distinct call_id) as ids from audit_calls')
  const rows = Number(totals.rows[0]!.rows)
  const distinctCallIds = Number(totals.rows[0]!.ids)
  const ok = byStatus.ok ?? 0
  const lost = Math.max(0, responses - ok)
  const extra = Math.max(0, ok - responses) + (rows - distinctCallIds)
  return { responses, failures, byStatus, rows, distinctCallIds, lost, extra, complete: failures === 0 && lost === 0 && extra === 0 && rows === ok }
}

async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl })
  await client.connect()
  try {
    await client.query(`drop database if exists ${name} with (force)`)
  } finally {
    await client.end()
  }
}

/**
 * The server to create the bench's database on: SKILLPLANE_BENCH_DATABASE_URL as given; else a
 * temporary cluster of our own with fsync on (as a deployment runs) and WAL timing on; else the
 * tests' server (SKILLPLANE_TEST_DATABASE_URL, which CI runs with fsync off).
 */
async function openServer(): Promise<{ url: string; source: string; own: TempPostgres | null } | { skipped: string }> {
  const given = process.env.SKILLPLANE_BENCH_DATABASE_URL
  if (given) return { url: given, source: 'the server at SKILLPLANE_BENCH_DATABASE_URL', own: null }
  let why = 'no initdb on PATH or in /usr/lib/postgresql (or no postgres user to run it as root)'
  try {
    const own = await startTempPostgres({ fsync: 'on', track_wal_io_timing: 'on' })
    if (own) return { url: own.url, source: 'a temporary cluster the bench started (fsync on, track_wal_io_timing on)', own }
  } catch (error) {
    why = `a temporary cluster did not start: ${(error as Error).message}`
  }
  const tests = process.env.SKILLPLANE_TEST_DATABASE_URL
  if (tests) return { url: tests, source: `the server at SKILLPLANE_TEST_DATABASE_URL (${why})`, own: null }
  return { skipped: `no PostgreSQL: ${why}, and neither SKILLPLANE_BENCH_DATABASE_URL nor SKILLPLANE_TEST_DATABASE_URL is set` }
}

function average(shares: Array<CpuShares | null>): CpuShares | null {
  if (shares.some((s) => s === null)) return null
  const mean = (pick: (s: CpuShares) => number) => round(shares.reduce((sum, s) => sum + pick(s!), 0) / shares.length, 2)
  const stalls = shares.map((s) => s!.waitingForCpu)
  return {
    managers: mean((s) => s.managers),
    loadGenerator: mean((s) => s.loadGenerator),
    postgres: mean((s) => s.postgres),
    machine: mean((s) => s.machine),
    waitingForCpu: stalls.some((w) => w === null) ? null : mean((s) => s.waitingForCpu!),
  }
}

/** The model's inputs, from the one-manager rounds and the commit probe. */
function projectionInputs(one: ManagersRun, probe: CommitProbe, server: ServerFacts): { inputs: ProjectionInputs; walSource: string } {
  const pgMicros = one.perCall && one.perCall.postgresBackends !== null ? one.perCall.postgresBackends + one.perCall.postgresBackground! : null
  let walMicros = one.wal.walMicros
  let walSource = "pg_stat_wal's wal_write_time + wal_sync_time per call (track_wal_io_timing on), in the one-manager rounds"
  if (walMicros === null && one.wal.syncs !== null) {
    // Without WAL timing: the flushes per call the rounds counted, each as long as the probe's commit less its round trip.
    const flushMs = probe.syncMs ?? Math.max(0, probe.commitMs - probe.roundTripMs)
    walMicros = one.wal.syncs * flushMs * 1000
    walSource = `pg_stat_wal's wal_sync per call in the one-manager rounds × one flush as the commit probe timed it (${probe.syncMs === null ? 'a commit less a round trip' : 'wal_sync_time ÷ wal_sync'})`
  }
  return {
    inputs: {
      managerMicros: one.perCall?.managers ?? NaN,
      postgresMicros: pgMicros,
      walMicros,
      transactionsPerCall: one.wal.transactions,
      commitMs: probe.commitMs,
      inFlight: CONNECTIONS,
      commitsInTurn: 2,
      poolPerManager: POOL_PER_MANAGER,
      usableConnections: server.maxConnections - server.reservedConnections,
      postgresCores: PROJECTION_POSTGRES_CORES,
    },
    walSource,
  }
}

/** Why this machine can't show two managers against one, or null where it can. */
function notMeasurableHere(cores: number, load: [number, number], coresNeeded: number | null): string | null {
  const reasons: string[] = []
  const busiest = Math.max(...load)
  if (busiest > cores) reasons.push(`the load average (${load.map((l) => l.toFixed(2)).join(' before, ')} after) is above the ${cores} cores`)
  if (coresNeeded === null) reasons.push('the CPU per call was not measured (no /proc), so the cores the target needs are unknown')
  else if (coresNeeded > cores)
    reasons.push(`two managers, PostgreSQL and the load generator need ${coresNeeded.toFixed(1)} cores at the target rate, and there are ${cores}`)
  return reasons.length === 0 ? null : reasons.join('; ')
}

/** One, two and three `skillplane serve` processes on one fresh PostgreSQL database, loaded together over HTTP. */
export async function runManagersBench(log: (line: string) => void = () => {}): Promise<ManagersBenchResult> {
  const sectionLoad = loadavg()[0]!
  const server = await openServer()
  if ('skipped' in server) return server
  let url: string
  try {
    url = await createTestDatabase(server.url)
  } catch (error) {
    server.own?.stop()
    return { skipped: `${server.source} did not take a new database: ${(error as Error).message}` }
  }
  const database = new URL(url).pathname.slice(1)
  const dir = mkdtempSync(join(tmpdir(), 'skillplane-managers-'))
  const managers: Manager[] = []
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const facts = await serverFacts(client)
    log(`  PostgreSQL ${facts.version} from ${server.source}: fsync ${facts.fsync ? 'on' : 'off'}, WAL timing ${facts.walTiming ? 'on' : 'off'}`)
    const config = writeConfig(dir)
    // One at a time: the first creates the schema and the admin key.
    let key = ''
    for (let n = 1; n <= 3; n++) {
      const started = await startManager(dir, n, config, url)
      managers.push(started)
      key = started.key ?? key
    }
    const probe: Probe = { key, postmaster: facts.postmaster, database, timing: facts.walTiming, client }
    let responses = 0
    let failures = 0
    const run = async (n: number, amount: number) => {
      const result = await drive(managers.slice(0, n), amount, probe)
      responses += result.report['2xx']
      failures += result.report.non2xx + result.report.errors + result.report.timeouts
      return { ...result, callsPerSecond: result.report['2xx'] / result.report.duration, requests: result.report['2xx'] }
    }
    // Warm every manager up (JIT, pools), and learn how many requests make a round of RUN_SECONDS.
    const warm = await run(3, 3_000)
    const rounds: Array<Array<Awaited<ReturnType<typeof run>>>> = [[], [], []]
    for (let r = 0; r < ROUNDS; r++) {
      for (let n = 1; n <= 3; n++) {
        const last = rounds[n - 1]!.at(-1)?.callsPerSecond ?? (warm.callsPerSecond * n) / 3
        const result = await run(n, Math.max(1_000, Math.round(last * RUN_SECONDS)))
        rounds[n - 1]!.push(result)
        log(
          `  round ${r + 1}, ${n} manager${n > 1 ? 's' : ''}: ${Math.round(result.callsPerSecond)} calls/s, load ${result.load.map((l) => l.toFixed(2)).join(' → ')}`,
        )
      }
    }
    const runs: ManagersRun[] = []
    for (let n = 1; n <= 3; n++) {
      const mine = rounds[n - 1]!
      const rate = median(mine.map((m) => m.callsPerSecond))
      const middle = mine.find((m) => m.callsPerSecond === rate)!
      const ratios = spread(mine.map((m, r) => m.callsPerSecond / rounds[0]![r]!.callsPerSecond))
      runs.push({
        managers: n,
        requests: mine.reduce((sum, m) => sum + m.requests, 0),
        callsPerSecond: round(rate),
        ratio: round(ratios.median, 2),
        ratioMin: round(ratios.min, 2),
        roundRates: mine.map((m) => round(m.callsPerSecond)),
        latencyP50Ms: middle.report.latency.p50,
        latencyP99Ms: middle.report.latency.p99,
        cpu: average(mine.map((m) => m.cpu)),
        perCall: cpuPerCall(mine.map((m) => m.ticks)),
        wal: walPerCall(
          sumMarks(mine.map((m) => m.moved)),
          Math.max(
            1,
            mine.reduce((sum, m) => sum + m.requests, 0),
          ),
          probe.timing,
        ),
        load: [mine[0]!.load[0], mine.at(-1)!.load[1]],
        floor: await measureFloor(url, probe, n),
      })
    }
    const commits = await measureCommits(probe)
    const audit = await auditCheck(client, responses, failures)
    const { inputs, walSource } = projectionInputs(runs[0]!, commits, facts)
    const one = runs[0]!.perCall
    const pgMicros = inputs.postgresMicros
    const targetRate = MANAGERS_TARGET_RATIO * runs[0]!.callsPerSecond
    const coresNeeded = one && pgMicros !== null ? 2 + (targetRate * (pgMicros + one.loadGenerator)) / 1e6 : null
    const load: [number, number] = [sectionLoad, loadavg()[0]!]
    const cores = cpus().length
    return {
      connections: CONNECTIONS,
      rounds: ROUNDS,
      cores,
      server: { ...facts, source: server.source },
      load,
      runs,
      probe: commits,
      inputs,
      walSource,
      projections: one ? project(inputs, PROJECTED_MANAGERS) : [],
      coresNeeded,
      notMeasurable: notMeasurableHere(cores, load, coresNeeded),
      audit,
    }
  } finally {
    await client.end().catch(() => {})
    for (const problem of await Promise.all(managers.map(stopManager))) if (problem) log(`  ${problem}`)
    if (server.own) server.own.stop()
    else await dropDatabase(server.url, database)
    rmSync(dir, { recursive: true, force: true })
  }
}

const yesNo = (met: boolean) => (met ? '**yes**' : '**no**')
const micros = (n: number | null | undefined) => (n === null || n === undefined || Number.isNaN(n) ? '—' : int(n))

export function printManagers(r: ManagersBenchResult, log: (line: string) => void = console.log): void {
  if ('skipped' in r) return log(`  skipped: ${r.skipped}`)
  for (const run of r.runs) {
    const c = run.perCall
    const cpu = c
      ? `; CPU per call: managers ${micros(c.managers)} µs (each ${c.perManager.map(micros).join(', ')}), PostgreSQL ${micros(c.postgresBackends)} + ${micros(c.postgresBackground)} µs, load generator ${micros(c.loadGenerator)} µs`
      : ''
    log(
      `  ${run.managers} manager${run.managers > 1 ? 's' : ''}: ${int(run.callsPerSecond)} audited calls/s (${run.ratio.toFixed(2)}×, least ${run.ratioMin.toFixed(2)}×), p99 ${run.latencyP99Ms} ms${cpu}; ` +
        `WAL ${micros(run.wal.walMicros)} µs, ${run.wal.syncs?.toFixed(3) ?? '—'} flushes, ${run.wal.transactions.toFixed(3)} commits per call; plain pg, two commits a call: ${int(run.floor.callsPerSecond)} calls/s`,
    )
  }
  log(
    `  commit probe: ${r.probe.commitMs.toFixed(3)} ms a commit, ${r.probe.roundTripMs.toFixed(3)} ms a round trip, ${r.probe.syncsPerCommit.toFixed(2)} flushes a commit`,
  )
  for (const p of r.projections)
    log(`  projected, ${p.managers} manager(s) on dedicated cores: ${int(p.callsPerSecond)} calls/s (${p.ratio.toFixed(2)}×), bound by ${p.binds}`)
  log(`  verdict: ${r.notMeasurable ? `not measurable here (${r.notMeasurable})` : 'measured'}`)
  const a = r.audit
  log(
    `  audit: ${int(a.byStatus.ok ?? 0)} ok rows for ${int(a.responses)} 2xx responses, ${a.lost} lost, ${a.extra} extra, ${a.failures} failed requests; by status ${JSON.stringify(a.byStatus)}`,
  )
}

/** The target's verdict: yes/no only where the machine can show it. */
export function managersVerdict(r: ManagersBenchFigures): Verdict {
  if (r.notMeasurable) return 'not measurable here'
  return r.runs[1]!.ratio >= MANAGERS_TARGET_RATIO ? 'yes' : 'no'
}

function targetFigure(r: ManagersBenchFigures): string {
  const [one, two] = [r.runs[0]!, r.runs[1]!]
  const c = one.perCall
  const projected = r.projections.find((p) => p.managers === 2)
  return (
    `${two.ratio.toFixed(2)}× measured (least ${two.ratioMin.toFixed(2)}×; ${int(one.callsPerSecond)}/s → ${int(two.callsPerSecond)}/s on ${r.cores} shared cores, load ${r.load.map((l) => l.toFixed(2)).join(' → ')}); ` +
    `CPU per call: manager ${micros(c?.managers)} µs, PostgreSQL ${micros(r.inputs.postgresMicros)} µs, load generator ${micros(c?.loadGenerator)} µs; WAL ${micros(r.inputs.walMicros)} µs` +
    (projected ? `; projected on dedicated cores: ${projected.ratio.toFixed(2)}×, bound by ${projected.binds}` : '')
  )
}

export function managersTargets(r: ManagersBenchResult): TargetRow[] {
  const target = `two managers ≥ ${MANAGERS_TARGET_RATIO}× one manager's audited calls/s (PostgreSQL)`
  if ('skipped' in r) return [{ target, figure: `not measured: ${r.skipped}`, verdict: 'not measurable here' }]
  const a = r.audit
  return [
    { target, figure: targetFigure(r), verdict: managersVerdict(r) },
    {
      target: 'several managers: every 2xx has its ok row, none twice',
      figure: `${int(a.byStatus.ok ?? 0)} ok rows for ${int(a.responses)} responses, ${a.lost} lost, ${a.extra} extra`,
      verdict: verdict(a.complete),
      fact: true,
    },
  ]
}

function projectionTable(r: ManagersBenchFigures): string {
  const bound = (n: number | null) => (n === null ? '—' : int(n))
  return `| managers | projected calls/s | ÷ one manager | binds first | manager CPU allows | PostgreSQL CPU (${PROJECTION_POSTGRES_CORES} cores) allows | WAL flushes/commit latency allow (${r.inputs.inFlight} in flight) | PostgreSQL cores to keep pace | WAL busy at today's batching | connections (of ${r.inputs.usableConnections ?? '—'}) |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
${r.projections
  .map(
    (p) =>
      `| ${p.managers} | ${int(p.callsPerSecond)} | ${p.ratio.toFixed(2)}× | ${p.binds} | ${bound(p.bounds['manager CPU'])} | ${bound(p.bounds['PostgreSQL CPU'])} | ${bound(p.bounds['WAL flushes/commit latency'])} | ${p.postgresCoresNeeded?.toFixed(2) ?? '—'} | ${p.walBusy === null ? '—' : `${(p.walBusy * 100).toFixed(0)} %`} | ${p.connections}${p.bounds.connections === null ? '' : ' (too many)'} |`,
  )
  .join('\n')}`
}

/** The section's markdown, below its heading in results.md. */
export function managersBody(r: ManagersBenchResult): string {
  if ('skipped' in r) return `Not measured in this run: ${r.skipped}.`
  const cores = (c: CpuShares | null, pick: (c: CpuShares) => number) => (c ? pick(c).toFixed(2) : '—')
  const a = r.audit
  const s = r.server
  const p = r.probe
  const i = r.inputs
  const verdict = managersVerdict(r)
  return `Three real \`skillplane serve\` processes (the same config: one no-op \`safe\` skill), each with its
own data dir, on one fresh database of PostgreSQL ${s.version} (${s.source}; fsync ${s.fsync ? 'on' : 'off'}, synchronous_commit ${s.synchronousCommit},
wal_sync_method ${s.walSyncMethod}, track_wal_io_timing ${s.walTiming ? 'on' : 'off'}). One autocannon process drives
\`POST /api/skills/{key}/invoke\` with ${r.connections} connections spread round-robin over the first one, two or three
managers, as a load balancer would; a round gives each of the three configurations a fixed number
of requests (about ${RUN_SECONDS} s), all answered before the next starts, and ${r.rounds} alternating rounds follow a warm-up, so
that a neighbour's load falls on every configuration alike. Figures are the median round's (each
round's calls/s in the last column; the ratio is each round's ratio to that round's one-manager figure, median and least).
CPU is read from /proc over each run: in cores (1.00 = one core busy all along), averaged, and per
audited call, a configuration's rounds summed before dividing (the ticks are 10 ms). A manager's CPU per call is its process's CPU ÷ the calls its own
\`/metrics\` counted; PostgreSQL's is its backends serving this database plus its background
processes (WAL writer, checkpointer, autovacuum). Every call commits its \`running\` row before the
skill runs and its final row before the answer (each manager batching concurrent calls' rows into one
commit). WAL per call comes from \`pg_stat_wal\` (writes, flushes and their time) ÷ the rows
inserted into \`audit_calls\` as PostgreSQL's statistics counted them (both flushed together), and
commits per call from the transaction ids taken. The plain-\`pg\` column is each call's two commits
alone (the audit repository's upsert into a copy of \`audit_calls\` with its indexes), ${r.connections} callers one
call after another over a pool of ${POOL_PER_MANAGER} connections per manager, measured after the rounds with the managers idle.
Load average (1 min): ${r.load[0].toFixed(2)} when the section started, ${r.load[1].toFixed(2)} when it ended, on ${r.cores} cores.

| managers | audited calls/s | ÷ one manager (median / least) | p50 ms | p99 ms | CPU cores: managers / load generator / PostgreSQL / machine | a task waited for a CPU | CPU µs per call: each manager | PostgreSQL backends + background | load generator | WAL µs per call | WAL flushes per call | commits per call | WAL bytes per call | plain pg, two commits a call: calls/s | load before → after | rounds: calls/s |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
${r.runs
  .map(
    (run) =>
      `| ${run.managers} | ${int(run.callsPerSecond)} | ${run.ratio.toFixed(2)}× / ${run.ratioMin.toFixed(2)}× | ${run.latencyP50Ms} | ${run.latencyP99Ms} | ` +
      `${cores(run.cpu, (c) => c.managers)} / ${cores(run.cpu, (c) => c.loadGenerator)} / ${cores(run.cpu, (c) => c.postgres)} / ${cores(run.cpu, (c) => c.machine)} | ` +
      `${run.cpu?.waitingForCpu == null ? '—' : `${(run.cpu.waitingForCpu * 100).toFixed(0)} %`} | ${run.perCall ? run.perCall.perManager.map(micros).join(', ') : '—'} | ` +
      `${micros(run.perCall?.postgresBackends)} + ${micros(run.perCall?.postgresBackground)} | ${micros(run.perCall?.loadGenerator)} | ${micros(run.wal.walMicros)} | ` +
      `${run.wal.syncs?.toFixed(3) ?? '—'} | ${run.wal.transactions.toFixed(3)} | ${int(run.wal.bytes)} | ${int(run.floor.callsPerSecond)} | ${run.load.map((l) => l.toFixed(2)).join(' → ')} | ${run.roundRates.map(int).join(' / ')} |`,
  )
  .join('\n')}

Commit probe (pg_test_fsync's question asked through PostgreSQL, the managers idle): ${p.commits} commits of one
audit row one after another on one connection took ${p.commitMs.toFixed(3)} ms each (a \`select 1\` round trip: ${p.roundTripMs.toFixed(3)} ms),
${p.syncsPerCommit.toFixed(2)} WAL flushes per commit${p.syncMs === null ? '' : `, ${p.syncMs.toFixed(3)} ms per flush`}.

Target: two managers ≥ ${MANAGERS_TARGET_RATIO}× one: ${r.runs[1]!.ratio.toFixed(2)}× measured, **${verdict}**${r.notMeasurable ? `: ${r.notMeasurable}` : ''}.

### Projected on dedicated cores

The model of [docs/deployment.md](../docs/deployment.md#how-far-more-managers-go), fed with the one-manager rounds:
a manager's CPU per call m = ${micros(i.managerMicros)} µs, PostgreSQL's p = ${micros(i.postgresMicros)} µs, WAL time per call
w = ${micros(i.walMicros)} µs (${r.walSource}), t = ${i.transactionsPerCall?.toFixed(3) ?? '—'} commits per call, a commit's latency L = ${i.commitMs?.toFixed(3) ?? '—'} ms
(the probe), N = ${i.inFlight} calls in flight (the bench's connections), each waiting for ${i.commitsInTurn} commits in turn, ${i.poolPerManager} connections per manager of the ${i.usableConnections ?? '—'} the server takes
(max_connections ${s.maxConnections} less ${s.reservedConnections} reserved). Each manager on a core of its own, PostgreSQL on ${PROJECTION_POSTGRES_CORES}.

${projectionTable(r)}

Audit check after the runs: ${int(a.responses)} 2xx responses (warm-up included), ${a.failures} other answers or errors;
rows by status ${Object.entries(a.byStatus)
    .map(([st, n]) => `${st} ${int(n)}`)
    .join(', ')}; ${int(a.distinctCallIds)} distinct call ids in ${int(a.rows)} rows. Lost (a 2xx without its ok row): ${a.lost};
extra (ok rows beyond the responses, or a call id twice): ${a.extra}. Complete: ${yesNo(a.complete)}.`
}

export const managersSection: BenchSection = {
  name: 'managers',
  title: 'Several managers on one PostgreSQL',
  async run(log) {
    const r = await runManagersBench(log)
    printManagers(r, log)
    return { targets: managersTargets(r), body: managersBody(r) }
  },
}
