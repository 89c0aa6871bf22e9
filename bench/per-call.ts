import { readdirSync, readFileSync } from 'node:fs'
import { spread, type Spread } from './support.js'

/** One side of an alternating comparison: its round's wall time and CPU time, per call. */
export interface PerCall {
  /** Wall milliseconds per call. */
  ms: number
  /** CPU microseconds per call (user + system, see `cpuMicros`). */
  cpuMicros: number
}

const TICK_MICROS = 1e6 / 100

/**
 * CPU microseconds this process has used, with its children's: those it has waited for (cutime,
 * cstime) and those still running (a watchdog, a stdio MCP server), read from /proc. Clock ticks
 * are 10 ms, so a round must last long enough for them to average out.
 */
export function cpuMicros(options: { children?: boolean } = {}): number {
  if (!options.children) {
    const { user, system } = process.cpuUsage()
    return user + system
  }
  const own = statFields(process.pid)
  let ticks = own ? own[0] + own[1] + own[2] + own[3] : 0
  for (const pid of childPids()) {
    const fields = statFields(pid)
    if (fields) ticks += fields[0] + fields[1] + fields[2] + fields[3]
  }
  return ticks * TICK_MICROS
}

function statFields(pid: number): [number, number, number, number] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    // utime, stime, cutime, cstime: fields 14-17, counted from the state (field 3) here.
    return [Number(f[11]), Number(f[12]), Number(f[13]), Number(f[14])]
  } catch {
    return null
  }
}

function childPids(): number[] {
  const pids: number[] = []
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      for (const pid of readFileSync(`/proc/self/task/${tid}/children`, 'utf8').trim().split(/\s+/)) if (pid) pids.push(Number(pid))
    } catch {
      // The thread ended.
    }
  }
  return pids
}

/** Run `calls` calls, `inFlight` at a time: wall and CPU time per call. */
export async function measure(calls: number, inFlight: number, call: () => Promise<void>, options: { children?: boolean } = {}): Promise<PerCall> {
  const cpu = cpuMicros(options)
  const start = performance.now()
  let next = 0
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next++ < calls) await call()
    }),
  )
  const ms = (performance.now() - start) / calls
  return { ms, cpuMicros: (cpuMicros(options) - cpu) / calls }
}

/** Per-round ratios of `a` to `b` on `pick`: min, median and each round's. */
/** The median over a side's rounds of one figure (wall ms or CPU µs per call). */
export const medianOf = (side: PerCall[], pick: (p: PerCall) => number): number => spread(side.map(pick)).median

export function roundRatios(a: PerCall[], b: PerCall[], pick: (p: PerCall) => number): Spread {
  return spread(a.map((x, i) => pick(x) / pick(b[i]!)))
}

/** The 1- and 5-minute load averages, as the figures are reported with them. */
export const loadAverage = (): string => {
  const [one, five] = readFileSync('/proc/loadavg', 'utf8').split(' ')
  return `${one} / ${five}`
}

/** A spread of ratios for a report: its min and median. */
export const minMedian = (s: Spread): string => `${s.min.toFixed(2)}× min, ${s.median.toFixed(2)}× median`
