import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pino from 'pino'
import { WebSocketServer, type WebSocket } from 'ws'
import { createSkillplane } from '../src/index.js'
import { startHttpServer } from '../src/surfaces/http/index.js'
import { BENCH_CALLER } from './support.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const MAIN = join(ROOT, 'dist/surfaces/cli/main.js')

export interface EdgeModeFigures {
  inFlight: number
  skillplanePerSecond: number
  barePerSecond: number
  ratio: number
}

export interface EdgeBenchResult {
  calls: number
  sequential: EdgeModeFigures
  concurrent: EdgeModeFigures
  /** One call relayed through SQLite to the manager holding the edge (another process's path), mean ms, against the same-manager call. */
  relayedMs: number
  localMs: number
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

/** The bare reference: a ws server in this process and an echoing client process, the edge's topology. */
async function startBareEcho(): Promise<{ call(n: number): Promise<unknown>; close(): Promise<void> }> {
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

/** A host-scope no-op skill through the whole pipeline to a real `skillplane edge` process, against a bare ws echo. */
export async function runEdgeBench(calls = 3_000): Promise<EdgeBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'skillplane-bench-edge-'))
  const config = join(dir, 'edge.config.mjs')
  writeFileSync(
    config,
    `import { defineSkill } from ${JSON.stringify(join(ROOT, 'dist/index.js'))}\n` +
      `export default { skills: [defineSkill({ key: 'edge_noop', description: 'Returns its input', class: 'safe', scope: 'host', ` +
      `input: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] }, run: (input) => ({ n: input.n }) })] }\n`,
  )
  const plane = await createSkillplane({ config: {}, dataDir: join(dir, 'data'), logger: pino({ level: 'silent' }), sync: true })
  const http = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
  const enrolled = await plane.edges.enroll({ name: 'bench' }, BENCH_CALLER)
  if (!enrolled.ok) throw new Error(enrolled.message)
  const edge: ChildProcess = spawn(
    process.execPath,
    [MAIN, '--config', config, '--data-dir', join(dir, 'edge'), 'edge', '--manager', http.url, '--log-level', 'error'],
    {
      env: { ...process.env, SKILLPLANE_EDGE_TOKEN: enrolled.token },
      stdio: 'ignore',
    },
  )
  const bare = await startBareEcho()
  let other: Awaited<ReturnType<typeof createSkillplane>> | undefined
  try {
    const deadline = Date.now() + 15_000
    while (!plane.edges.get('bench')?.online || !plane.registry.get('edge_noop')) {
      if (Date.now() > deadline) throw new Error('the bench edge did not connect')
      await new Promise((r) => setTimeout(r, 20))
    }
    const ours = async (n: number) => {
      const envelope = await plane.invoke('edge_noop', { n }, { caller: BENCH_CALLER, edgeId: 'bench' })
      if (!envelope.ok) throw new Error(`edge call failed: ${JSON.stringify(envelope.error)}`)
    }
    const mode = async (inFlight: number): Promise<EdgeModeFigures> => {
      await rate(bare.call, 300, inFlight)
      await rate(ours, 300, inFlight)
      const ourRates: number[] = []
      const bareRates: number[] = []
      for (let round = 0; round < 4; round++) {
        bareRates.push(await rate(bare.call, calls / 4, inFlight))
        ourRates.push(await rate(ours, calls / 4, inFlight))
      }
      const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length
      return { inFlight, skillplanePerSecond: mean(ourRates), barePerSecond: mean(bareRates), ratio: mean(ourRates) / mean(bareRates) }
    }
    const sequential = await mode(1)
    const concurrent = await mode(16)
    // Another manager on the same SQLite file (what `skillplane invoke --edge` is): its calls are relayed.
    other = await createSkillplane({ config: {}, dataDir: join(dir, 'data'), logger: pino({ level: 'silent' }) })
    const timeCalls = async (target: typeof plane, n: number) => {
      const start = performance.now()
      for (let i = 0; i < n; i++) {
        const envelope = await target.invoke('edge_noop', { n: i }, { caller: BENCH_CALLER, edgeId: 'bench' })
        if (!envelope.ok) throw new Error(`edge call failed: ${JSON.stringify(envelope.error)}`)
      }
      return (performance.now() - start) / n
    }
    const relayedMs = await timeCalls(other, 40)
    const localMs = await timeCalls(plane, 200)
    return { calls, sequential, concurrent, relayedMs, localMs }
  } finally {
    edge.kill()
    await other?.close()
    await bare.close()
    await http.close()
    await plane.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await runEdgeBench()
  console.log(JSON.stringify(result, null, 2))
}
