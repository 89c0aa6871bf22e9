// The manager of the many-edges measurement, in a fresh process of its own (node --expose-gc), so
// that the memory and CPU it reports are this manager's alone: with no edge, one, then all of them.
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import pino from 'pino'
import { createSkillplane } from '../dist/index.js'
import { startHttpServer } from '../dist/surfaces/http/index.js'

const dataDir = process.argv[2]
const [edgeCount, heartbeatMs, beatsPerWindow, windows] = process.argv.slice(3, 7).map(Number)
if (!dataDir || ![edgeCount, heartbeatMs, beatsPerWindow, windows].every((n) => Number.isInteger(n) && n > 0)) {
  throw new Error('usage: node --expose-gc edge-fleet.child.mjs DATA_DIR EDGES HEARTBEAT_MS BEATS_PER_WINDOW WINDOWS')
}
if (typeof global.gc !== 'function') throw new Error('run this with node --expose-gc')
const CALLER = { kind: 'user', id: 'bench', name: 'bench', role: 'admin' }
const AGENTS = fileURLToPath(new URL('./edge-agents.child.mjs', import.meta.url))
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/**
 * Wait until this process is quiet (under 20 % of a core over a quarter second; 100 edges' heartbeats take about half that): what start-up or a
 * connection set off (catalog syncs after skill changes) is done before a measurement. Says how long.
 */
async function quiet(what) {
  const started = performance.now()
  for (;;) {
    const before = process.cpuUsage()
    await sleep(250)
    const used = process.cpuUsage(before)
    if (used.user + used.system < 50_000) break
    if (performance.now() - started > 300_000) throw new Error(`this process was still busy 300 s after ${what}`)
  }
  console.error(`quiet after ${what}: ${((performance.now() - started) / 1000).toFixed(2)} s`)
}

const plane = await createSkillplane({ config: { edges: { heartbeatMs } }, dataDir, logger: pino({ level: 'silent' }), sync: true })
const http = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
const names = Array.from({ length: edgeCount }, (_, i) => `fleet-${i}`)
const tokens = []
for (const name of names) {
  const enrolled = await plane.sources.edges.enroll({ name }, CALLER)
  if (!enrolled.ok) throw new Error(enrolled.message)
  tokens.push(enrolled.token)
}

const children = []
/** Connect these edges (one process for all of them) and wait until the manager holds every one. */
async function connect(from, to) {
  const started = performance.now()
  const child = spawn(process.execPath, [AGENTS, http.url], {
    env: { ...process.env, SKILLPLANE_EDGE_TOKENS: tokens.slice(from, to).join(',') },
    stdio: ['pipe', 'ignore', 'inherit'],
  })
  children.push(child)
  // A deadline of minutes: on a loaded machine connecting is slow, not broken.
  const deadline = Date.now() + 300_000
  while (!names.slice(from, to).every((name) => plane.sources.edges.get(name)?.online)) {
    if (child.exitCode !== null) throw new Error(`the edge agents process exited with ${child.exitCode}`)
    if (Date.now() > deadline)
      throw new Error(`waited 300 s for edges ${from}–${to - 1} to connect: only ${names.filter((n) => plane.sources.edges.get(n)?.online).length} did`)
    await sleep(20)
  }
  const seconds = (performance.now() - started) / 1000
  console.error(`edges ${from}–${to - 1} connected: after ${seconds.toFixed(2)} s`)
  await quiet(`edges ${from}–${to - 1} connected`)
  return seconds
}

/** CPU of one reload of the edge directory (the manager's own 5 s tick does one), mean of 10. */
async function reloadMicros() {
  const start = process.cpuUsage()
  for (let i = 0; i < 10; i++) await plane.sources.edges.refresh()
  const cpu = process.cpuUsage(start)
  return (cpu.user + cpu.system) / 10
}

/**
 * Memory after full collections, then the CPU this process spends per heartbeat round, over
 * windows of heartbeats: the least of them, since other work on the machine only ever adds.
 */
async function sample() {
  const reload = await reloadMicros()
  let cpuMicrosPerBeat = Infinity
  let reconnected = 0
  let memory
  for (let window = 0; window < windows; window++) {
    for (let i = 0; i < 3; i++) global.gc()
    const { heapUsed, heapTotal, rss } = process.memoryUsage()
    memory = { heapUsed, heapTotal, rss }
    const since = names.map((name) => plane.sources.edges.get(name)?.connectedSince)
    const start = process.cpuUsage()
    await sleep(heartbeatMs * beatsPerWindow)
    const cpu = process.cpuUsage(start)
    cpuMicrosPerBeat = Math.min(cpuMicrosPerBeat, (cpu.user + cpu.system) / beatsPerWindow)
    // An edge that reconnected in the window (a missed heartbeat) would make the window cost more.
    reconnected += names.filter((name, i) => plane.sources.edges.get(name)?.connectedSince !== since[i]).length
  }
  return { ...memory, cpuMicrosPerBeat, reloadMicros: reload, reconnected }
}

try {
  // Start-up work (the first catalog sync, timers' first runs) out of the way first.
  await quiet('start-up')
  const none = await sample()
  await connect(0, 1)
  const one = await sample()
  const connectSeconds = await connect(1, edgeCount)
  const all = await sample()
  // A call to one edge among them all still goes through, and how long it takes.
  const target = names[Math.floor(edgeCount / 2)]
  const calls = 20
  const callStart = performance.now()
  for (let n = 0; n < calls; n++) {
    const envelope = await plane.invoke('edge_noop', { n }, { caller: CALLER, edgeId: target })
    if (!envelope.ok || envelope.data?.n !== n) throw new Error(`the call to ${target} failed: ${JSON.stringify(envelope)}`)
  }
  const callMs = (performance.now() - callStart) / calls
  const online = names.filter((name) => plane.sources.edges.get(name)?.online).length
  console.log(JSON.stringify({ edges: edgeCount, heartbeatMs, beatsPerWindow, windows, connectSeconds, online, calledEdge: target, callMs, none, one, all }))
} finally {
  for (const child of children) child.kill()
  await http.close()
  await plane.close()
}
