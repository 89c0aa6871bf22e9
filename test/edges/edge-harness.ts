import { spawn, type ChildProcess } from 'node:child_process'
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach } from 'vitest'
import { createSkillplane, type Skillplane } from '../../src/agents/index.js'
import { startHttpServer, type HttpServer } from '../../src/surfaces/http/index.js'
import { silentLogger } from '../../src/test-support/fixtures.js'
import { tempDir, waitFor } from '../../src/test-support/databases.js'
import type { SkillplaneConfig } from '../../src/config/index.js'

export const MAIN = join(import.meta.dirname, '../../dist/surfaces/cli/main.js')

const children = new Set<ChildProcess>()
const closers: Array<() => Promise<unknown>> = []
afterEach(async () => {
  for (const child of children) child.kill('SIGKILL')
  children.clear()
  for (const close of closers.splice(0).reverse()) await close().catch(() => {})
})

export interface Manager {
  plane: Skillplane
  server: HttpServer
  url: string
  adminKey: string
  /** POST /api/skills/KEY/invoke as the admin (or another key). */
  invoke(key: string, body: Record<string, unknown>, options?: { key?: string; signal?: AbortSignal }): Promise<{ status: number; body: any }>
  api(method: string, path: string, body?: unknown, key?: string): Promise<{ status: number; body: any }>
  close(): Promise<void>
}

/** A manager in this process on 127.0.0.1 (port 0, or the one given to restart on it). */
export async function startManager(location: { dataDir: string; databaseUrl?: string }, config: SkillplaneConfig = {}, port = 0): Promise<Manager> {
  const plane = await createSkillplane({ config: { edges: { heartbeatMs: 500 }, ...config }, ...location, logger: silentLogger(), sync: true })
  const server = await startHttpServer(plane, { host: '127.0.0.1', port })
  const { key: adminKey } = await plane.people.keys.create({ name: `admin-${Date.now()}-${Math.random()}`, role: 'admin' }, plane.now())
  const api = async (method: string, path: string, body?: unknown, key = adminKey) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    })
    return { status: response.status, body: await response.json().catch(() => null) }
  }
  let closed = false
  const close = async () => {
    if (closed) return
    closed = true
    await server.close()
    await plane.close()
  }
  closers.push(close)
  return {
    plane,
    server,
    url: server.url,
    adminKey,
    api,
    invoke: async (key, body, options = {}) => {
      const response = await fetch(`${server.url}/api/skills/${key}/invoke`, {
        method: 'POST',
        headers: { authorization: `Bearer ${options.key ?? adminKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: options.signal,
      })
      return { status: response.status, body: await response.json() }
    },
    close,
  }
}

export interface EdgeProcess {
  child: ChildProcess
  output(): string
  exited: Promise<number | null>
}

/** `skillplane edge` as a real process. */
export function startEdge(managers: string[], token: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): EdgeProcess {
  const child = spawn(process.execPath, [MAIN, 'edge', '--manager', managers.join(','), '--token', token, '--log-level', 'warn', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.add(child)
  let out = ''
  child.stdout!.on('data', (chunk) => (out += chunk))
  child.stderr!.on('data', (chunk) => (out += chunk))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return { child, output: () => out, exited }
}

/** Enroll an edge over HTTP and wait until a started edge process is online. */
export async function enrollAndStart(
  manager: Manager,
  name: string,
  options: { labels?: Record<string, string>; args?: string[]; env?: NodeJS.ProcessEnv; managers?: string[] } = {},
) {
  const enrolled = await manager.api('POST', '/api/edges', { name, labels: options.labels ?? {} })
  if (enrolled.status !== 201) throw new Error(`enroll failed: ${JSON.stringify(enrolled.body)}`)
  const token: string = enrolled.body.token
  const edge = startEdge(options.managers ?? [manager.url], token, options.args, options.env)
  // As long as it takes (the test's timeout stops a hung one); an edge that exits fails at once.
  await waitFor(() => manager.plane.sources.edges.get(name)?.online === true || edge.child.exitCode !== null || edge.child.signalCode !== null)
  if (manager.plane.sources.edges.get(name)?.online !== true) throw new Error(`edge ${name} did not come online: ${edge.output()}`)
  return { token, edge, id: enrolled.body.edge.id as string }
}

/**
 * A pack that sleeps `ms` milliseconds (the input), then touches `marker` and answers: a side effect
 * that must never happen for a call that was cancelled, timed out or whose edge died.
 */
export function slowPack(timeoutSeconds = 20): { dir: string; trace: string } {
  const root = tempDir('skillplane-edge-pack-')
  const trace = join(root, 'trace')
  mkdirSync(trace)
  const pack = join(root, 'packs', 'slow_op')
  mkdirSync(pack, { recursive: true })
  writeFileSync(
    join(pack, 'run.mjs'),
    `#!${process.execPath}\nimport { writeFileSync } from 'node:fs'\nlet text = ''\nprocess.stdin.on('data', (c) => (text += c))\nprocess.stdin.on('end', () => {\n  const { ms, marker } = JSON.parse(text)\n  setTimeout(() => {\n    if (marker) writeFileSync(${JSON.stringify(trace)} + '/' + marker, 'done')\n    process.stdout.write(JSON.stringify({ slept: ms }))\n  }, ms)\n})\n`,
  )
  chmodSync(join(pack, 'run.mjs'), 0o755)
  writeFileSync(
    join(pack, 'skill.json'),
    JSON.stringify({
      name: 'slow_op',
      description: 'Sleeps, then leaves a marker file',
      entry: 'run.mjs',
      class: 'safe',
      timeout_seconds: timeoutSeconds,
      schema: { type: 'object', required: ['ms'], properties: { ms: { type: 'integer', minimum: 0 }, marker: { type: 'string', pattern: '^[a-z0-9-]+$' } } },
    }),
  )
  return { dir: join(root, 'packs'), trace }
}

/**
 * The CLI as a separate process on the same data dir (another manager, as far as edges go); run
 * asynchronously, since the manager in this process must keep answering meanwhile.
 */
export function cli(location: { dataDir: string; databaseUrl?: string }, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const config = join(tempDir('skillplane-edge-cli-'), 'skillplane.config.mjs')
  writeFileSync(config, 'export default {}\n')
  const child = spawn(
    process.execPath,
    [MAIN, '--data-dir', location.dataDir, '--config', config, ...(location.databaseUrl ? ['--database-url', location.databaseUrl] : []), ...args],
    { env: { ...process.env, SKILLPLANE_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  children.add(child)
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (chunk) => (stdout += chunk))
  child.stderr!.on('data', (chunk) => (stderr += chunk))
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })))
}

export { waitFor, tempDir }

/**
 * Two packs for an edge: `probe_token` declares the secret PROBE_TOKEN and reports it back (its
 * length, and the value, as a careless program would); `env_names` declares none and lists the
 * environment it was given.
 */
export function secretPacks(): string {
  const root = join(tempDir('skillplane-edge-secret-packs-'), 'packs')
  const pack = (name: string, manifest: object, body: string) => {
    mkdirSync(join(root, name), { recursive: true })
    writeFileSync(
      join(root, name, 'run.mjs'),
      `#!${process.execPath}\nprocess.stdin.resume()\nprocess.stdin.on('end', () => process.stdout.write(JSON.stringify(${body})))\n`,
    )
    chmodSync(join(root, name, 'run.mjs'), 0o755)
    writeFileSync(join(root, name, 'skill.json'), JSON.stringify({ name, entry: 'run.mjs', class: 'safe', schema: { type: 'object' }, ...manifest }))
  }
  pack(
    'probe_token',
    { description: 'Reports the token it was given', secrets: ['PROBE_TOKEN'] },
    '{ length: process.env.PROBE_TOKEN.length, echoed: process.env.PROBE_TOKEN }',
  )
  pack('env_names', { description: 'Lists the names of its environment variables' }, 'Object.keys(process.env)')
  return root
}
