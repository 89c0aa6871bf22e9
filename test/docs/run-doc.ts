import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir, userInfo } from 'node:os'
import { freePort } from '../../src/test-support/free-port.js'
import { join } from 'node:path'
import { extractExamples, type DocExample } from './extract-examples.js'
import { Bindings, compareOutput } from './match-output.js'

export const ROOT = realpathSync(new URL('../..', import.meta.url).pathname)
const CLI = join(ROOT, 'dist/surfaces/cli/main.js')
const CONFIG = join(ROOT, 'examples/skillplane.config.ts')
/** The values the docs show, which a run replaces by its own. */
const DOC_URL = 'http://127.0.0.1:7420'
const DOC_ROOT = '/path/to/skillplane'
/** Where the docs show the demo's depot service; a run gets a free port of its own. */
const DOC_DEPOT = 'http://127.0.0.1:7421'

export interface Mismatch {
  where: string
  command: string
  documented: string
  actual: string
}

export interface DocReport {
  file: string
  compared: number
  /** Run for their effect only: the doc shows no output. */
  ranWithoutOutput: number
  skipped: Array<{ where: string; reason: string }>
  mismatches: Mismatch[]
  /** Wall time of each example run, to see where a slow doc test spends it. */
  timings: Array<{ where: string; ms: number }>
}

/** `npm run cli --` and `skillplane` run the built CLI with the example config, without npm's own lines. */
const PRELUDE = `exec 2>&1
cd "$DOC_WORK"
[ -f "$DOC_STATE/env.sh" ] && . "$DOC_STATE/env.sh"
skillplane() { node "$DOC_CLI" --config "$DOC_CONFIG" "$@"; }
npm() {
  if [ "$1 $2 $3" = "run cli --" ]; then shift 3; skillplane "$@"; return; fi
  echo "doc-test: only 'npm run cli --' runs in a doc example, not 'npm $*'"; return 127
}
trap 'status=$?; export -p > "$DOC_STATE/env.sh"; echo $status > "$DOC_STATE/status"' EXIT
(exit "$(cat "$DOC_STATE/status" 2>/dev/null || echo 0)")
`

interface Server {
  url: string
  adminKey: string
  startup: string
  process: ChildProcess
}

/** Starts `serve` as `npm start` does, on a free port, and reads the URL and admin key it prints. */
async function startServer(env: NodeJS.ProcessEnv): Promise<Server> {
  const child = spawn(process.execPath, [CLI, 'serve', '--config', CONFIG, '--port', '0'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stderr!.on('data', (d: Buffer) => (stderr += d))
  return await new Promise<Server>((resolve, reject) => {
    // No deadline of its own: a loaded machine starts it slowly, and the test's timeout stops a hung one.
    const fail = (error: Error) => {
      child.kill('SIGKILL')
      reject(new Error(`${error.message}\nstdout:\n${stdout}\nstderr:\n${stderr}`))
    }
    child.on('exit', (code) => fail(new Error(`the server exited with ${code}`)))
    child.stdout!.on('data', (d: Buffer) => {
      stdout += d
      const done = /^try: .*$/m.exec(stdout)
      if (!done) return
      child.removeAllListeners('exit')
      const url = /^console +(http:\/\/\S+?)\/$/m.exec(stdout)?.[1]
      const adminKey = /^admin key \(shown once; store it now\): (sp_\S+)$/m.exec(stdout)?.[1]
      if (!url || !adminKey) return fail(new Error('no URL or admin key in the server output'))
      resolve({ url, adminKey, startup: stdout.slice(0, done.index + done[0].length), process: child })
    })
  })
}

function runBash(script: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve) => {
    execFile('bash', ['-c', script], { env, cwd: ROOT, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout) => {
      resolve(error && (error as { killed?: boolean }).killed ? `${stdout}\ndoc-test: killed after 60 s` : stdout)
    })
  })
}

/**
 * Runs one markdown file's examples in document order against a fresh data dir (and a fresh
 * server when an example uses it), comparing each documented output with the real one.
 */
export async function runDoc(file: string, markdown: string, options: { server?: boolean } = {}): Promise<DocReport> {
  const { steps, serverOutputs } = extractExamples(markdown, file)
  const examples = steps.filter((s): s is DocExample => 'command' in s)
  const report: DocReport = { file, compared: 0, ranWithoutOutput: 0, skipped: [], mismatches: [], timings: [] }
  const tmp = realpathSync(mkdtempSync(join(tmpdir(), 'sp-doc-test-')))
  const dataDir = join(tmp, 'data')
  const state = join(tmp, 'state')
  mkdirSync(state)
  // Examples run in a copy of the checkout made of links, so files they write stay in the temp dir.
  const work = join(tmp, 'repo')
  mkdirSync(work)
  for (const entry of ['dist', 'examples', 'node_modules', 'package.json']) symlinkSync(join(ROOT, entry), join(work, entry))
  const env: NodeJS.ProcessEnv = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('SKILLPLANE_') && !/_API_KEY$/.test(k) && k !== 'FORCE_COLOR'),
  )
  const depot = `http://127.0.0.1:${await freePort()}`
  Object.assign(env, {
    SKILLPLANE_DATA_DIR: dataDir,
    SKILLPLANE_DEMO_API_PORT: new URL(depot).port,
    // The demo's OAuth service too: each doc's server its own, none shared with another file's.
    SKILLPLANE_DEMO_OAUTH_PORT: String(await freePort()),
    NO_COLOR: '1',
    DOC_WORK: work,
    DOC_STATE: state,
    DOC_CLI: CLI,
    DOC_CONFIG: CONFIG,
  })
  const bindings = new Bindings()
  let server: Server | null = null
  const user = userInfo().username
  // The run's own values back to the ones the docs show.
  const asDocumented = (text: string) => {
    let out = text
    if (server) out = out.split(server.url).join(DOC_URL)
    out = out.split(depot).join(DOC_DEPOT)
    out = out.split(dataDir).join(`${DOC_ROOT}/.skillplane`).split(work).join(DOC_ROOT).split(tmp).join('/tmp').split(ROOT).join(DOC_ROOT)
    return out.split(`local:${user}`).join('local:root')
  }
  const ensureServer = async () => {
    if (server) return server
    server = await startServer(env)
    bindings.adminKey = server.adminKey
    env.SP = server.url
    env.AUTH = `Authorization: Bearer ${server.adminKey}`
    return server
  }
  const where = (e: { file: string; line: number }) => `${e.file}:${e.line}`
  try {
    // Every doc runs its examples as the README does: against the server of Quick start, so the catalog is synced.
    if (options.server !== false && (serverOutputs.length > 0 || examples.some((e) => !e.skip))) await ensureServer()
    for (const expected of serverOutputs) {
      const actual = asDocumented(server!.startup)
      report.compared++
      if (!compareOutput(expected.expected, actual, bindings, { shape: false })) {
        report.mismatches.push({
          where: where(expected),
          command: 'skillplane serve --config examples/skillplane.config.ts',
          documented: expected.expected,
          actual,
        })
      }
    }
    const asRun = (text: string) =>
      bindings
        .apply(text)
        .split(DOC_URL)
        .join(server ? server.url : DOC_URL)
        .split('/tmp/')
        .join(`${tmp}/`)
    for (const step of steps) {
      if (!('command' in step)) {
        writeFileSync(join(work, step.name), asRun(step.text))
        continue
      }
      const example = step
      if (example.skip) {
        report.skipped.push({ where: where(example), reason: example.skip })
        continue
      }
      const started = performance.now()
      const actual = asDocumented(await runBash(PRELUDE + asRun(example.command), env))
      report.timings.push({ where: where(example), ms: Math.round(performance.now() - started) })
      if (example.expected === null) {
        // With no output to compare, the example must at least succeed.
        const status = readFileSync(join(state, 'status'), 'utf8').trim()
        if (status !== '0')
          report.mismatches.push({
            where: where(example),
            command: example.command,
            documented: `(no output shown; exit status 0 expected, got ${status})`,
            actual,
          })
        report.ranWithoutOutput++
        continue
      }
      report.compared++
      if (!compareOutput(example.expected, actual, bindings, { shape: example.shape })) {
        report.mismatches.push({ where: where(example), command: example.command, documented: example.expected, actual })
      }
    }
  } finally {
    const running = server as Server | null
    if (running) {
      const exited = new Promise((r) => running.process.once('exit', r))
      running.process.kill('SIGTERM')
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))])
      running.process.kill('SIGKILL')
    }
    rmSync(tmp, { recursive: true, force: true })
  }
  return report
}

/** The report as text: every skip and mismatch with its place, the documented and the real output. */
export function formatReport(report: DocReport): string {
  const lines = [
    `${report.file}: ${report.compared} compared, ${report.ranWithoutOutput} run without output, ${report.skipped.length} skipped, ${report.mismatches.length} mismatched`,
  ]
  const total = report.timings.reduce((sum, t) => sum + t.ms, 0)
  const slowest = [...report.timings].sort((a, b) => b.ms - a.ms).slice(0, 3)
  lines.push(`  ran in ${total} ms; slowest: ${slowest.map((t) => `${t.where} ${t.ms} ms`).join(', ') || '-'}`)
  for (const s of report.skipped) lines.push(`  skipped ${s.where}: ${s.reason}`)
  for (const m of report.mismatches) {
    lines.push(`  MISMATCH at ${m.where}\n  command:\n${indent(m.command)}\n  documented:\n${indent(m.documented)}\n  actual:\n${indent(m.actual)}`)
  }
  return lines.join('\n')
}
const indent = (text: string) =>
  text
    .split('\n')
    .map((l) => '    | ' + l)
    .join('\n')
