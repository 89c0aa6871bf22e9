import { readFileSync } from 'node:fs'
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import { Worker } from 'node:worker_threads'

/** How late an event loop ran over a stretch, probed every 5 ms. */
export interface LoopFigures {
  maxMs: number
  p99Ms: number
  seconds: number
  /** When it was held up over 10 ms: seconds into the stretch, and for how long. */
  stalls: string[]
  /**
   * The most CPU time the main thread spent between two probes (Linux; undefined elsewhere): the
   * stall an unloaded machine would show, since time the thread waited for a core is not counted.
   */
  cpuMs?: number
  /** When that was: seconds into the stretch. */
  cpuAt?: number
}

const PROBE_MS = 5

/** This thread's CPU time so far in ns, from the scheduler (the main thread's id is the process id). */
function mainThreadCpuNs(): number | undefined {
  try {
    return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0])
  } catch {
    return undefined
  }
}

/** Watches this process's event loop while `work` runs. */
export async function watchLoop(work: () => Promise<unknown>): Promise<LoopFigures> {
  const delay = monitorEventLoopDelay({ resolution: PROBE_MS })
  delay.enable()
  const stalls: string[] = []
  const start = performance.now()
  let last = start
  let cpuLast = mainThreadCpuNs()
  let cpuMs: number | undefined = cpuLast === undefined ? undefined : 0
  let cpuAt: number | undefined
  const probe = setInterval(() => {
    const now = performance.now()
    if (now - last > PROBE_MS + 10) stalls.push(`${((now - start) / 1000).toFixed(1)} s: ${(now - last - PROBE_MS).toFixed(0)} ms`)
    last = now
    const cpu = mainThreadCpuNs()
    if (cpu !== undefined && cpuLast !== undefined && (cpu - cpuLast) / 1e6 > (cpuMs ?? 0)) {
      cpuMs = (cpu - cpuLast) / 1e6
      cpuAt = (now - start) / 1000
    }
    cpuLast = cpu
  }, PROBE_MS)
  try {
    await work()
  } finally {
    clearInterval(probe)
    delay.disable()
  }
  return { maxMs: delay.max / 1e6, p99Ms: delay.percentile(99) / 1e6, seconds: (performance.now() - start) / 1000, stalls, cpuMs, cpuAt }
}

// The same probe as watchLoop's, in a thread of its own that does nothing else.
const BARE_LOOP = `
const { parentPort } = require('node:worker_threads')
const { monitorEventLoopDelay, performance } = require('node:perf_hooks')
let delay, probe, stalls, start, last
parentPort.on('message', (what) => {
  if (what === 'start') {
    delay = monitorEventLoopDelay({ resolution: ${PROBE_MS} })
    delay.enable()
    stalls = []
    start = last = performance.now()
    probe = setInterval(() => {
      const now = performance.now()
      if (now - last > ${PROBE_MS + 10}) stalls.push(((now - start) / 1000).toFixed(1) + ' s: ' + (now - last - ${PROBE_MS}).toFixed(0) + ' ms')
      last = now
    }, ${PROBE_MS})
  } else {
    clearInterval(probe)
    delay.disable()
    parentPort.postMessage({ maxMs: delay.max / 1e6, p99Ms: delay.percentile(99) / 1e6, seconds: (performance.now() - start) / 1000, stalls })
  }
})
`

/**
 * The reference for watchLoop: a bare event loop in a worker thread of this process, idle, watched
 * over the same stretch. What holds it up is the machine (other processes on the cores), not us.
 */
export class BareLoop {
  readonly #worker = new Worker(BARE_LOOP, { eval: true })

  /** Watch the bare loop while `work` runs, beside whatever watches the main thread. */
  async during<T>(work: () => Promise<T>): Promise<{ value: T; bare: LoopFigures }> {
    const figures = new Promise<LoopFigures>((resolve) => this.#worker.once('message', resolve))
    this.#worker.postMessage('start')
    try {
      return { value: await work(), bare: await (this.#worker.postMessage('stop'), figures) }
    } catch (error) {
      this.#worker.postMessage('stop')
      await figures
      throw error
    }
  }

  close(): Promise<number> {
    return this.#worker.terminate()
  }
}

/**
 * A stall target's verdict over rounds watched beside the bare loop: met when no round was held up
 * over the limit; a round held up while the bare loop was held up too says nothing about us.
 */
export function stallVerdict(rounds: Array<{ main: LoopFigures; bare: LoopFigures }>, limitMs: number): 'yes' | 'no' | 'not measurable here' {
  const over = rounds.filter((r) => r.main.maxMs > limitMs)
  if (over.length === 0) return 'yes'
  return over.every((r) => r.bare.maxMs > limitMs) ? 'not measurable here' : 'no'
}
