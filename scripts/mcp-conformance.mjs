// Runs the MCP conformance suite's server scenarios (@modelcontextprotocol/conformance, `--suite all`)
// against `skillplane serve`'s /mcp, with the fixture server of test/mcp-conformance imported as `test`
// (and `json`), and checks the result against the baseline of expected failures in that folder.
//
//   node scripts/mcp-conformance.mjs [--scenario NAME] [--baseline FILE] [--out DIR] [--database-url URL] [--install-only]
//
// The suite needs Node >= 22: a Node 22 binary (the npm package `node`) and the suite are installed from
// the npm registry into node_modules/.cache/mcp-conformance once, and reused. Exit codes: 0 every scenario
// is as the baseline says; 1 a scenario failed that the baseline doesn't list, a listed one passed (the
// baseline is stale) or the run broke; 75 the suite can't be installed here (no registry): nothing ran.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { request as httpRequest, createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse as parseYaml } from 'yaml'

const SUITE_VERSION = '0.1.16'
const NODE_MAJOR = '22'
const UNAVAILABLE = 75

const root = fileURLToPath(new URL('..', import.meta.url))
const here = join(root, 'test', 'mcp-conformance')
const cacheDir = join(root, 'node_modules', '.cache', `mcp-conformance-${SUITE_VERSION}`)
const cli = join(root, 'dist', 'surfaces', 'cli', 'main.js')

const options = parseArgs(process.argv.slice(2))
const log = (line) => console.log(`mcp-conformance: ${line}`)

class Unavailable extends Error {}

try {
  const suite = install()
  if (options.installOnly) {
    log(`Node ${NODE_MAJOR} and @modelcontextprotocol/conformance ${SUITE_VERSION} are ready in ${cacheDir}`)
    process.exit(0)
  }
  process.exit(await run(suite))
} catch (error) {
  if (error instanceof Unavailable) {
    console.error(`mcp-conformance: skipped: ${error.message}`)
    process.exit(UNAVAILABLE)
  }
  console.error(`mcp-conformance: ${error instanceof Error ? error.message : String(error)}`)
  process.exit(1)
}

function parseArgs(args) {
  const parsed = { out: join(root, 'test-output', 'mcp-conformance'), baseline: join(here, 'expected-failures.yaml'), installOnly: false }
  for (let i = 0; i < args.length; i++) {
    const value = () => args[++i] ?? fail(`${args[i - 1]} needs a value`)
    if (args[i] === '--scenario') parsed.scenario = value()
    else if (args[i] === '--out') parsed.out = value()
    else if (args[i] === '--baseline') parsed.baseline = value()
    else if (args[i] === '--database-url') parsed.databaseUrl = value()
    else if (args[i] === '--install-only') parsed.installOnly = true
    else fail(`unknown argument ${args[i]} (use --scenario NAME, --baseline FILE, --out DIR, --database-url URL, --install-only)`)
  }
  return parsed
}

function fail(message) {
  console.error(`mcp-conformance: ${message}`)
  process.exit(1)
}

/** Node 22 and the suite in the cache folder, installed with npm unless the same versions are there already. */
function install() {
  const manifest = JSON.stringify(
    {
      private: true,
      description: 'The MCP conformance suite and the Node it needs, for scripts/mcp-conformance.mjs',
      dependencies: { node: NODE_MAJOR, '@modelcontextprotocol/conformance': SUITE_VERSION },
      // The node package fetches its platform's binary (itself an npm package) in an install script.
      allowScripts: { node: true },
    },
    null,
    2,
  )
  const node = join(cacheDir, 'node_modules', 'node', 'bin', 'node')
  const entry = join(cacheDir, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js')
  const manifestFile = join(cacheDir, 'package.json')
  const ready = () => existsSync(entry) && existsSync(node) && nodeVersion(node)?.startsWith(`v${NODE_MAJOR}.`)
  if (!(existsSync(manifestFile) && readFileSync(manifestFile, 'utf8') === manifest && ready())) {
    log(`installing Node ${NODE_MAJOR} and @modelcontextprotocol/conformance ${SUITE_VERSION} into ${cacheDir}`)
    rmSync(cacheDir, { recursive: true, force: true })
    mkdirSync(cacheDir, { recursive: true })
    writeFileSync(manifestFile, manifest)
    const npm = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--no-package-lock'], { cwd: cacheDir, encoding: 'utf8' })
    if (npm.error || npm.status !== 0) {
      const why = npm.error ? npm.error.message : npmReason(npm.stderr)
      rmSync(cacheDir, { recursive: true, force: true })
      throw new Unavailable(`Node ${NODE_MAJOR} and the suite can't be installed from the npm registry (npm install failed: ${why})`)
    }
    if (!ready()) throw new Unavailable(`the npm package node installed no working Node ${NODE_MAJOR} binary for this platform (${node})`)
  }
  return { node, entry }
}

function nodeVersion(node) {
  const result = spawnSync(node, ['--version'], { encoding: 'utf8' })
  return result.status === 0 ? result.stdout.trim() : undefined
}

/** npm's own one-line reason (`npm error code ECONNREFUSED`, `… request to … failed, reason: …`), else its last lines. */
function npmReason(stderr) {
  const reasons = stderr
    .split('\n')
    .filter((line) => /^npm error (code |\w*Error: |request to |network )/.test(line))
    .map((line) => line.replace(/^npm error /, ''))
  return reasons.length > 0 ? reasons.join('; ') : lastLines(stderr, 5)
}

function lastLines(text, count) {
  return text.trim().split('\n').slice(-count).join(' | ')
}

/** The baseline: scenario names, each after a comment line saying why it fails. */
function readBaseline(file) {
  const text = readFileSync(file, 'utf8')
  const lines = text.split('\n')
  const unexplained = []
  lines.forEach((line, index) => {
    const entry = /^\s*-\s*(\S+)/.exec(line)
    if (entry && !/^\s*#/.test(lines[index - 1] ?? '')) unexplained.push(entry[1])
  })
  if (unexplained.length > 0)
    throw new Error(`${file}: every entry needs a comment line above it saying why it fails; these have none: ${unexplained.join(', ')}`)
  const parsed = parseYaml(text) ?? {}
  if (parsed.server !== undefined && !Array.isArray(parsed.server)) throw new Error(`${file}: server must be a list of scenario names`)
  return (parsed.server ?? []).map(String)
}

async function run(suite) {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run npm run build first`)
  const baselineFile = options.baseline
  const baseline = readBaseline(baselineFile)
  rmSync(options.out, { recursive: true, force: true })
  const resultsDir = join(options.out, 'results')
  mkdirSync(resultsDir, { recursive: true })
  const dataDir = mkdtempSync(join(tmpdir(), 'skillplane-conformance-'))
  const stops = []
  try {
    const plane = await serve(dataDir, join(options.out, 'serve.log'))
    stops.push(plane.stop)
    await waitForImport(plane)
    const proxy = await authProxy(plane.port, plane.key)
    stops.push(proxy.stop)
    const url = `http://127.0.0.1:${proxy.port}/mcp`
    log(`running the server scenarios against ${url} (skillplane on port ${plane.port}; the log is in ${options.out})`)
    const args = [suite.entry, 'server', '--url', url, '--expected-failures', baselineFile, '-o', resultsDir]
    args.push(...(options.scenario ? ['--scenario', options.scenario] : ['--suite', 'all']))
    const exitCode = await runSuite(suite.node, args, join(options.out, 'conformance.log'))
    return report(resultsDir, baseline, exitCode)
  } finally {
    for (const stop of stops.reverse()) await stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

/** `skillplane serve` on a fresh embedded database (or --database-url), on a free port; resolves with its port and the admin key it printed. */
function serve(dataDir, logFile) {
  const args = [cli, '--data-dir', dataDir, '--config', join(here, 'skillplane.config.mjs')]
  if (options.databaseUrl) args.push('--database-url', options.databaseUrl)
  args.push('serve', '--port', '0')
  const env = { ...process.env, SKILLPLANE_LOG_LEVEL: process.env.SKILLPLANE_LOG_LEVEL ?? 'info' }
  delete env.SKILLPLANE_DATABASE_URL
  const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] })
  // Stopped with this script, however it ends (a test timeout, Ctrl-C): no serve left behind.
  process.on('exit', () => child.kill('SIGTERM'))
  for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => process.exit(130))
  let stdout = ''
  let stderr = ''
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)))
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM')
    await exited
    writeFileSync(logFile, `${stdout}\n${stderr}`)
  }
  return new Promise((resolve, reject) => {
    const check = () => {
      const port = /^api {6}http:\/\/127\.0\.0\.1:(\d+)\/api\/skills$/m.exec(stdout)?.[1]
      const key = /^admin key \(shown once; store it now\): (\S+)$/m.exec(stdout)?.[1]
      if (port && key) resolve({ port: Number(port), key, stop })
    }
    child.stdout.on('data', (chunk) => {
      stdout += chunk
      check()
    })
    child.stderr.on('data', (chunk) => (stderr += chunk))
    void exited.then(async (code) => {
      await stop()
      reject(new Error(`skillplane serve exited (code ${code}) before it listened: ${lastLines(stderr, 10)}`))
    })
  })
}

/** Both fixture servers' tools are skills before the suite starts, or the run stops here naming what is missing. */
async function waitForImport(plane) {
  const wanted = ['test_simple_text', 'json_schema_2020_12_tool']
  const deadline = Date.now() + 30_000
  let keys = []
  while (Date.now() < deadline) {
    const response = await fetch(`http://127.0.0.1:${plane.port}/api/skills?limit=500`, { headers: { authorization: `Bearer ${plane.key}` } })
    if (response.ok) {
      keys = (await response.json()).skills.map((skill) => skill.key)
      if (wanted.every((key) => keys.includes(key))) return
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(
    `the fixture servers were not imported within 30 s: ${wanted.filter((key) => !keys.includes(key)).join(', ')} missing from /api/skills (see serve.log)`,
  )
}

/**
 * The suite's client can't send a header (0.1.16 has no option for it) and /mcp needs an API key, so
 * the suite talks to this loopback proxy, which adds the admin key and passes everything else through
 * as it came (Host and Origin too, so /mcp's DNS-rebinding check sees what the suite sent).
 */
async function authProxy(targetPort, key) {
  const sockets = new Set()
  const server = createServer((req, res) => {
    const upstream = httpRequest(
      { host: '127.0.0.1', port: targetPort, method: req.method, path: req.url, headers: { ...req.headers, authorization: `Bearer ${key}` } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.rawHeaders)
        // Event streams go through as they come, not buffered.
        res.flushHeaders()
        answer.pipe(res)
      },
    )
    upstream.on('error', () => res.destroy())
    res.on('close', () => upstream.destroy())
    req.pipe(upstream)
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: server.address().port,
    stop: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(resolve)
      }),
  }
}

function runSuite(node, args, logFile) {
  return new Promise((resolve) => {
    const child = spawn(node, args, { cwd: options.out, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    child.stderr.on('data', (chunk) => (output += chunk))
    child.on('exit', (code) => {
      writeFileSync(logFile, output)
      resolve(code ?? 1)
    })
  })
}

/** Prints each scenario's result (a failure with its checks' messages) and writes summary.json; the exit code. */
function report(resultsDir, baseline, suiteExitCode) {
  const scenarios = readdirSync(resultsDir)
    .filter((dir) => existsSync(join(resultsDir, dir, 'checks.json')))
    .map((dir) => {
      const name = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(dir)?.[1] ?? dir
      const checks = JSON.parse(readFileSync(join(resultsDir, dir, 'checks.json'), 'utf8'))
      const failures = checks
        .filter((check) => check.status === 'FAILURE' || check.status === 'WARNING')
        .map((check) => ({ id: check.id, status: check.status, errorMessage: check.errorMessage ?? check.description }))
      return { name, passed: failures.length === 0, failures }
    })
    .sort((a, b) => a.name.localeCompare(b.name))
  const names = new Set(scenarios.map((s) => s.name))
  const unexpected = scenarios.filter((s) => !s.passed && !baseline.includes(s.name)).map((s) => s.name)
  const stale = baseline.filter((name) => names.has(name) && scenarios.find((s) => s.name === name).passed)
  const passed = scenarios.filter((s) => s.passed).length
  // A name that is no scenario (a typo) would otherwise sit in the baseline for ever.
  const unknown = options.scenario ? [] : baseline.filter((name) => !names.has(name))
  for (const scenario of scenarios) {
    const mark = scenario.passed ? 'pass' : baseline.includes(scenario.name) ? 'FAIL (expected)' : 'FAIL'
    console.log(`${mark.padEnd(15)} ${scenario.name}`)
    for (const failure of scenario.failures) console.log(`                  ${failure.status} ${failure.id}: ${failure.errorMessage}`)
  }
  log(`${passed} of ${scenarios.length} scenarios pass; ${scenarios.length - passed} fail, ${scenarios.length - passed - unexpected.length} of them expected`)
  if (unexpected.length > 0) log(`unexpected failures (not in ${options.baseline}): ${unexpected.join(', ')}`)
  if (stale.length > 0) log(`the baseline is stale: these pass now, remove them from ${options.baseline}: ${stale.join(', ')}`)
  if (unknown.length > 0) log(`${options.baseline} names scenarios the suite doesn't have: ${unknown.join(', ')}`)
  const summary = { passed, total: scenarios.length, unexpected, stale, unknown, suiteExitCode, scenarios }
  writeFileSync(join(options.out, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`)
  if (scenarios.length === 0) {
    log(`the suite produced no results (exit code ${suiteExitCode}): see ${join(options.out, 'conformance.log')}`)
    return 1
  }
  return unexpected.length > 0 || stale.length > 0 || unknown.length > 0 || suiteExitCode !== 0 ? 1 : 0
}
