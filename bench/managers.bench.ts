import { parseTargetRows, type BenchSection } from './section.js'
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { createTestDatabase } from '../src/test-support/postgres.js'
import { round } from './support.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const MAIN = join(ROOT, 'dist/surfaces/cli/main.js')
const AUTOCANNON = join(ROOT, 'node_modules/.bin/autocannon')
const SKILL = 'managers_noop'
const BODY = JSON.stringify({ input: { n: 1 } })
// A manager's pool (src/store/open-database.ts): the floor gets as many connections per manager.
const POOL_PER_MANAGER = 10
// Divisible by 1, 2 and 3, so every manager gets the same share of the connections.
const CONNECTIONS = 48
// Alternating rounds (1, 2, 3 managers, again and again) so that a neighbour's load on a shared
// machine falls on every configuration alike; each figure is the median of its rounds.
const ROUNDS = 5
const RUN_SECONDS = 2
const FLOOR_SECONDS = 2
export const MANAGERS_TARGET_RATIO = 1.6

/** Where CPU went during a run, in cores (1 = one core busy all along). */
export interface CpuShares {
  managers: number
  loadGenerator: number
  /** The backends of this run's database (other databases on the server are not counted). */
  postgres: number
  /** Everything busy on the machine, other processes included. */
  machine: number
  /** Share of the run during which some runnable task waited for a CPU (Linux pressure stall information), or null. */
  waitingForCpu: number | null
}

export interface ManagersRun {
  managers: number
  /** Answered requests over all rounds. */
  requests: number
  /** Median of the rounds. */
  callsPerSecond: number
  /** Median over the rounds of this configuration's calls/s ÷ the one manager's in the same round. */
  ratio: number
  /** Each round's calls/s, in order. */
  roundRates: number[]
  /** The round with the median calls/s. */
  latencyP50Ms: number
  latencyP99Ms: number
  /** Averaged over the rounds. */
  cpu: CpuShares | null
  /** CPU of managers, load generator and PostgreSQL per audited call, µs. */
  cpuMicrosPerCall: number | null
  /** Plain `pg` doing a call's two commits (the same upsert into a copy of audit_calls), one call after another per connection. */
  floor: Floor
}

export interface Floor {
  callsPerSecond: number
  /** CPU of this run's PostgreSQL backends and of the `pg` client process, in cores. */
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
  runs: ManagersRun[]
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
  url: string
  child: ChildProcess
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
  return new Promise((resolve, reject) => {
    const read = (chunk: string) => {
      out += chunk
      const url = /api\s+(http:\/\/\S+)\/api\/skills/.exec(out)?.[1]
      const key = /admin key \(shown once; store it now\): (sp_\S+)/.exec(out)?.[1] ?? null
      if (url && (key || /keys exist/.test(out))) resolve({ url, child, key })
    }
    child.stdout.setEncoding('utf8').on('data', read)
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (out += chunk))
    child.once('exit', (code) => reject(new Error(`manager ${index} exited (${code}) before it listened: ${out.trim()}`)))
  })
}

async function stopManager(manager: Manager): Promise<void> {
  if (manager.child.exitCode !== null) return
  const exited = once(manager.child, 'exit')
  manager.child.kill('SIGTERM')
  await exited
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

// CPU time in clock ticks (USER_HZ, 100 on Linux) read from /proc; null where there is no /proc.
const TICKS_PER_SECOND = 100

function processTicks(pid: number): number {
  try {
    // Fields after the command name (which may hold spaces): utime is the 14th field, stime the 15th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return Number(fields[11]) + Number(fields[12])
  } catch {
    return 0
  }
}

/** Children this process has waited for: how the load generator's CPU is read once it has exited. */
function reapedChildTicks(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ')
  return Number(fields[13]) + Number(fields[14])
}

function machineBusyTicks(): number {
  const [, ...values] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/)
  // user nice system idle iowait irq softirq steal: all but idle and iowait.
  const [user, nice, system, , , irq, softirq, steal] = values.map(Number) as number[]
  return user! + nice! + system! + irq! + softirq! + steal!
}

/** PostgreSQL backends serving this database (their command line names it). */
function postgresTicks(database: string): number {
  let ticks = 0
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    let cmdline: string
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8')
    } catch {
      continue
    }
    if (cmdline.startsWith('postgres: ') && cmdline.includes(` ${database} `)) ticks += processTicks(Number(entry))
  }
  return ticks
}

interface CpuMark {
  managers: number
  children: number
  postgres: number
  machine: number
  stallMicros: number | null
  at: number
}

/** Total µs some task has waited for a CPU (/proc/pressure/cpu), or null without PSI. */
function cpuStallMicros(): number | null {
  try {
    return Number(/^some .*total=(\d+)/m.exec(readFileSync('/proc/pressure/cpu', 'utf8'))?.[1] ?? NaN) || null
  } catch {
    return null
  }
}

function cpuMark(managers: Manager[], database: string): CpuMark | null {
  if (!existsSync('/proc/stat')) return null
  return {
    managers: managers.reduce((sum, m) => sum + processTicks(m.child.pid!), 0),
    children: reapedChildTicks(),
    postgres: postgresTicks(database),
    machine: machineBusyTicks(),
    stallMicros: cpuStallMicros(),
    at: performance.now(),
  }
}

function cpuShares(start: CpuMark | null, end: CpuMark | null): CpuShares | null {
  if (!start || !end) return null
  const seconds = (end.at - start.at) / 1000
  const cores = (ticks: number) => round(ticks / TICKS_PER_SECOND / seconds, 2)
  return {
    managers: cores(end.managers - start.managers),
    loadGenerator: cores(end.children - start.children),
    postgres: cores(end.postgres - start.postgres),
    machine: cores(end.machine - start.machine),
    waitingForCpu: start.stallMicros === null || end.stallMicros === null ? null : round((end.stallMicros - start.stallMicros) / 1e6 / seconds, 2),
  }
}

/** `amount` requests over these managers' invoke routes from one autocannon process, connections spread round-robin as a load balancer would. */
async function load(managers: Manager[], key: string, amount: number, database: string): Promise<{ report: AutocannonReport; cpu: CpuShares | null }> {
  const urls = managers.map((m) => `${m.url}/api/skills/${SKILL}/invoke`)
  const args = ['-c', String(CONNECTIONS), '-a', String(amount), '-m', 'POST', '-b', BODY, '-j', '-t', '30']
  for (const header of ['content-type=application/json', `authorization=Bearer ${key}`]) args.push('-H', header)
  const start = cpuMark(managers, database)
  const child = spawn(AUTOCANNON, [...args, ...urls], { stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const [code] = (await once(child, 'close')) as [number | null]
  const end = cpuMark(managers, database)
  if (code !== 0) throw new Error(`autocannon exited with ${code}: ${stderr.trim()}`)
  return { report: JSON.parse(stdout.trim().split('\n').pop() ?? '') as AutocannonReport, cpu: cpuShares(start, end) }
}

/**
 * What PostgreSQL alone allows: each call's two commits (its running row, then its final row, the
 * same upsert the audit repository runs, into a copy of audit_calls with its indexes), made by
 * `connections` callers one call after another, over a pool as large as the managers' pools together.
 */
async function measureFloor(url: string, database: string, managers: number): Promise<Floor> {
  const pool = new pg.Pool({ connectionString: url, max: POOL_PER_MANAGER * managers })
  try {
    await pool.query('drop table if exists bench_floor_calls')
    await pool.query('create table bench_floor_calls (like audit_calls including all)')
    const template = (await pool.query(`select * from audit_calls where status = 'ok' limit 1`)).rows[0] as Record<string, unknown>
    const columns = Object.keys(template)
    const finals = ['status', 'result', 'result_truncated', 'error_code', 'error_message', 'finished_at', 'duration_ms', 'approval_id', 'trace_id', 'grant_id']
    const upsert =
      `insert into bench_floor_calls (${columns.join(', ')}) values (${columns.map((_, i) => `$${i + 1}`).join(', ')}) ` +
      `on conflict (call_id) do update set ${finals.map((c) => `${c} = excluded.${c}`).join(', ')}`
    const running: Record<string, unknown> = { ...template, status: 'running', result: null, finished_at: null, duration_ms: null }
    let calls = 0
    const call = async (id: string) => {
      await pool.query(
        upsert,
        columns.map((c) => (c === 'call_id' ? id : running[c])),
      )
      await pool.query(
        upsert,
        columns.map((c) => (c === 'call_id' ? id : template[c])),
      )
    }
    const runFor = async (seconds: number) => {
      const deadline = performance.now() + seconds * 1000
      await Promise.all(
        Array.from({ length: CONNECTIONS }, async (_, worker) => {
          for (let i = 0; performance.now() < deadline; i++) {
            await call(`floor-${managers}-${seconds}-${worker}-${i}`)
            calls++
          }
        }),
      )
    }
    await runFor(0.5)
    calls = 0
    const startTicks = existsSync('/proc/stat') ? postgresTicks(database) : null
    const startClient = process.cpuUsage()
    const started = performance.now()
    await runFor(FLOOR_SECONDS)
    const seconds = (performance.now() - started) / 1000
    const client = process.cpuUsage(startClient)
    const postgresCores = startTicks === null ? null : round((postgresTicks(database) - startTicks) / TICKS_PER_SECOND / seconds, 2)
    await pool.query('drop table bench_floor_calls')
    return { callsPerSecond: round(calls / seconds), postgresCores, clientCores: round((client.user + client.system) / 1e6 / seconds, 2) }
  } finally {
    await pool.end()
  }
}

async function auditCheck(url: string, responses: number, failures: number): Promise<ManagersAudit> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const statuses = await client.query<{ status: string; n: string }>('select status, count(*) as n from audit_calls group by status')
    const byStatus = Object.fromEntries(statuses.rows.map((r) => [r.status, Number(r.n)]))
    const totals = await client.query<{ rows: string; ids: string }>('select count(*) as rows, count(distinct call_id) as ids from audit_calls')
    const rows = Number(totals.rows[0]!.rows)
    const distinctCallIds = Number(totals.rows[0]!.ids)
    const ok = byStatus.ok ?? 0
    const lost = Math.max(0, responses - ok)
    const extra = Math.max(0, ok - responses) + (rows - distinctCallIds)
    return { responses, failures, byStatus, rows, distinctCallIds, lost, extra, complete: failures === 0 && lost === 0 && extra === 0 && rows === ok }
  } finally {
    await client.end()
  }
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

interface Round {
  callsPerSecond: number
  requests: number
  report: AutocannonReport
  cpu: CpuShares | null
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

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

/** One, two and three `skillplane serve` processes on one fresh PostgreSQL database, loaded together over HTTP. */
export async function runManagersBench(): Promise<ManagersBenchResult> {
  const serverUrl = process.env.SKILLPLANE_BENCH_DATABASE_URL ?? process.env.SKILLPLANE_TEST_DATABASE_URL
  if (!serverUrl) return { skipped: 'no PostgreSQL: set SKILLPLANE_BENCH_DATABASE_URL (or SKILLPLANE_TEST_DATABASE_URL) to a server that takes a new database' }
  const url = await createTestDatabase(serverUrl)
  const database = new URL(url).pathname.slice(1)
  const dir = mkdtempSync(join(tmpdir(), 'skillplane-managers-'))
  const managers: Manager[] = []
  try {
    const config = writeConfig(dir)
    // One at a time: the first creates the schema and the admin key.
    let key = ''
    for (let n = 1; n <= 3; n++) {
      const started = await startManager(dir, n, config, url)
      managers.push(started)
      key = started.key ?? key
    }
    let responses = 0
    let failures = 0
    const run = async (n: number, amount: number): Promise<Round> => {
      const { report, cpu } = await load(managers.slice(0, n), key, amount, database)
      responses += report['2xx']
      failures += report.non2xx + report.errors + report.timeouts
      return { callsPerSecond: report['2xx'] / report.duration, requests: report['2xx'], report, cpu }
    }
    // Warm every manager up (JIT, pools), and learn how many requests make a round of RUN_SECONDS.
    const warm = await run(3, 3_000)
    const rounds: Round[][] = [[], [], []]
    for (let r = 0; r < ROUNDS; r++) {
      for (let n = 1; n <= 3; n++) {
        const last = rounds[n - 1]!.at(-1)?.callsPerSecond ?? (warm.callsPerSecond * n) / 3
        rounds[n - 1]!.push(await run(n, Math.max(1_000, Math.round(last * RUN_SECONDS))))
      }
    }
    const runs: ManagersRun[] = []
    for (let n = 1; n <= 3; n++) {
      const mine = rounds[n - 1]!
      const rate = median(mine.map((m) => m.callsPerSecond))
      const middle = mine.find((m) => m.callsPerSecond === rate)!
      const cpu = average(mine.map((m) => m.cpu))
      const busy = cpu && cpu.managers + cpu.loadGenerator + cpu.postgres
      runs.push({
        managers: n,
        requests: mine.reduce((sum, m) => sum + m.requests, 0),
        callsPerSecond: round(rate),
        ratio: round(median(mine.map((m, r) => m.callsPerSecond / rounds[0]![r]!.callsPerSecond)), 2),
        roundRates: mine.map((m) => round(m.callsPerSecond)),
        latencyP50Ms: middle.report.latency.p50,
        latencyP99Ms: middle.report.latency.p99,
        cpu,
        cpuMicrosPerCall: busy === null ? null : round((busy * 1e6) / rate),
        floor: await measureFloor(url, database, n),
      })
    }
    const audit = await auditCheck(url, responses, failures)
    return { connections: CONNECTIONS, rounds: ROUNDS, cores: cpus().length, runs, audit }
  } finally {
    await Promise.all(managers.map(stopManager))
    await dropDatabase(serverUrl, database)
    rmSync(dir, { recursive: true, force: true })
  }
}

const int = (n: number) => Math.round(n).toLocaleString('en-US')
const yesNo = (met: boolean) => (met ? '**yes**' : '**no**')

/** What bounds the two-manager figure, from the same run's measures. */
function boundText(r: ManagersBenchFigures): string {
  const [one, two] = [r.runs[0]!, r.runs[1]!]
  if (!one.cpu || !two.cpu || one.cpuMicrosPerCall === null) return 'CPU shares were not measured here (no /proc), so what bounds the figures is not shown.'
  const ceiling = (r.cores * 1e6) / one.cpuMicrosPerCall
  const ceilingRatio = ceiling / one.callsPerSecond
  const ours = two.cpu.managers + two.cpu.loadGenerator + two.cpu.postgres
  const others = Math.max(0, two.cpu.machine - ours)
  const othersOne = Math.max(0, one.cpu.machine - (one.cpu.managers + one.cpu.loadGenerator + one.cpu.postgres))
  const left = ((r.cores - othersOne) * 1e6) / one.cpuMicrosPerCall / one.callsPerSecond
  const lines = [
    `- **CPU.** One audited call costs ${int(one.cpuMicrosPerCall)} µs of CPU in the one-manager runs (managers, load generator and PostgreSQL together): ` +
      `${r.cores} cores hold at most ${int(ceiling)} calls/s at that cost, **${ceilingRatio.toFixed(2)}× one manager**, however many managers share them; ` +
      `less the ${othersOne.toFixed(2)} cores other processes took meanwhile, ${left.toFixed(2)}×` +
      (Math.min(ceilingRatio, left) < MANAGERS_TARGET_RATIO ? `: the ${MANAGERS_TARGET_RATIO}× target is out of reach on this machine by CPU alone.` : '.'),
    `- **The machine.** During the two-manager runs ${two.cpu.machine.toFixed(2)} of ${r.cores} cores were busy: ${ours.toFixed(2)} for this bench's processes, ` +
      `${others.toFixed(2)} for other processes on the machine${others >= 0.2 ? ' (a shared machine: its neighbours take cores the managers would use)' : ''}` +
      (two.cpu.waitingForCpu === null ? '.' : `; some runnable task was waiting for a CPU ${(two.cpu.waitingForCpu * 100).toFixed(0)} % of the time.`),
    `- **PostgreSQL.** Plain \`pg\` doing only the two commits per call reached ${int(two.floor.callsPerSecond)} calls/s with the two-manager pool ` +
      `(its backends on ${two.floor.postgresCores?.toFixed(2) ?? '—'} cores, the client on ${two.floor.clientCores.toFixed(2)}); two managers reached ` +
      `${((two.callsPerSecond / two.floor.callsPerSecond) * 100).toFixed(0)} % of that` +
      (two.callsPerSecond >= two.floor.callsPerSecond
        ? ", their group commit putting several calls' rows in one commit."
        : ": PostgreSQL's commits were not the wall."),
  ]
  return lines.join('\n')
}

export function printManagers(r: ManagersBenchResult, log: (line: string) => void = console.log): void {
  if ('skipped' in r) return log(`  skipped: ${r.skipped}`)
  for (const run of r.runs) {
    const cpu = run.cpu
      ? `; CPU cores: managers ${run.cpu.managers}, load generator ${run.cpu.loadGenerator}, PostgreSQL ${run.cpu.postgres}, machine ${run.cpu.machine} of ${r.cores}` +
        (run.cpu.waitingForCpu === null ? '' : `, a task waiting for a CPU ${(run.cpu.waitingForCpu * 100).toFixed(0)} % of the time`)
      : ''
    log(
      `  ${run.managers} manager${run.managers > 1 ? 's' : ''}: ${int(run.callsPerSecond)} audited calls/s (${run.ratio.toFixed(2)}×), p99 ${run.latencyP99Ms} ms${cpu}; ` +
        `plain pg, two commits a call: ${int(run.floor.callsPerSecond)} calls/s`,
    )
  }
  const a = r.audit
  log(
    `  audit: ${int(a.byStatus.ok ?? 0)} ok rows for ${int(a.responses)} 2xx responses, ${a.lost} lost, ${a.extra} extra, ${a.failures} failed requests; by status ${JSON.stringify(a.byStatus)}`,
  )
}

export function managersTargetRows(r: ManagersBenchResult): string[] {
  if ('skipped' in r) return [`| two managers ≥ ${MANAGERS_TARGET_RATIO}× one manager's audited calls/s | not measured: ${r.skipped} | — |`]
  const two = r.runs[1]!
  const a = r.audit
  return [
    `| two managers ≥ ${MANAGERS_TARGET_RATIO}× one manager's audited calls/s (PostgreSQL) | ${two.ratio.toFixed(2)}× (${int(r.runs[0]!.callsPerSecond)}/s → ${int(two.callsPerSecond)}/s on ${r.cores} cores shared with the load generator and PostgreSQL) | ${yesNo(two.ratio >= MANAGERS_TARGET_RATIO)} |`,
    `| several managers: every 2xx has its ok row, none twice | ${int(a.byStatus.ok ?? 0)} ok rows for ${int(a.responses)} responses, ${a.lost} lost, ${a.extra} extra | ${yesNo(a.complete)} |`,
  ]
}

/** The section of results.md. */
export function managersReport(r: ManagersBenchResult): string {
  const title = '## Several managers on one PostgreSQL'
  if ('skipped' in r) return `${title}\n\nNot measured in this run: ${r.skipped}.`
  const cores = (c: CpuShares | null, pick: (c: CpuShares) => number) => (c ? pick(c).toFixed(2) : '—')
  const a = r.audit
  return `${title}

Three real \`skillplane serve\` processes (the same config: one no-op \`safe\` skill), each with its
own data dir, on one fresh PostgreSQL database. One autocannon process drives
\`POST /api/skills/{key}/invoke\` with ${r.connections} connections spread round-robin over the first one, two or three
managers, as a load balancer would; a round gives each of the three configurations a fixed number
of requests (about ${RUN_SECONDS} s), all answered before the next starts, and ${r.rounds} alternating rounds follow a warm-up, so
that a neighbour's load falls on every configuration alike. Figures are the median round's (each
round's calls/s in the last column; the ratio is the median of each round's ratio to that round's
one-manager figure); CPU is read from /proc over each run and averaged, in cores
(1.00 = one core busy all along), PostgreSQL's being the backends serving this database. Every call
commits its \`running\` row before the skill runs and its final row before the answer (each
manager batching concurrent calls' rows into one commit). The last column is plain \`pg\` doing each
call's two commits alone (the audit repository's upsert into a copy of \`audit_calls\` with its
indexes), ${r.connections} callers one call after another over a pool of ${POOL_PER_MANAGER} connections per manager, measured
after the rounds with the managers idle.

| managers | audited calls/s | ÷ one manager | p50 ms | p99 ms | CPU managers | CPU load generator | CPU PostgreSQL | machine busy (of ${r.cores}) | time a task waited for a CPU | CPU µs per call | plain pg, two commits a call: calls/s | rounds: calls/s |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
${r.runs
  .map(
    (run) =>
      `| ${run.managers} | ${int(run.callsPerSecond)} | ${run.ratio.toFixed(2)}× | ${run.latencyP50Ms} | ${run.latencyP99Ms} | ${cores(run.cpu, (c) => c.managers)} | ${cores(run.cpu, (c) => c.loadGenerator)} | ${cores(run.cpu, (c) => c.postgres)} | ${cores(run.cpu, (c) => c.machine)} | ${run.cpu?.waitingForCpu == null ? '—' : `${(run.cpu.waitingForCpu * 100).toFixed(0)} %`} | ${run.cpuMicrosPerCall === null ? '—' : int(run.cpuMicrosPerCall)} | ${int(run.floor.callsPerSecond)} | ${run.roundRates.map(int).join(' / ')} |`,
  )
  .join('\n')}

Target: two managers ≥ ${MANAGERS_TARGET_RATIO}× one: ${r.runs[1]!.ratio.toFixed(2)}×, ${r.runs[1]!.ratio >= MANAGERS_TARGET_RATIO ? 'met' : 'not met'}. What bounds it here:

${boundText(r)}

Audit check after the runs: ${int(a.responses)} 2xx responses (warm-up included), ${a.failures} other answers or errors;
rows by status ${Object.entries(a.byStatus)
    .map(([s, n]) => `${s} ${int(n)}`)
    .join(', ')}; ${int(a.distinctCallIds)} distinct call ids in ${int(a.rows)} rows. Lost (a 2xx without its ok row): ${a.lost};
extra (ok rows beyond the responses, or a call id twice): ${a.extra}. Complete: ${yesNo(a.complete)}.`
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await runManagersBench()
  printManagers(result)
  console.log(managersReport(result))
}

export const managersSection: BenchSection = {
  name: 'managers',
  title: 'Several managers on one PostgreSQL',
  async run(log) {
    const r = await runManagersBench()
    printManagers(r, log)
    return { targets: parseTargetRows(managersTargetRows(r), /every 2xx/), body: managersReport(r) }
  },
}
