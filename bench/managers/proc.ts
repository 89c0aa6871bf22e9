import { existsSync, readdirSync, readFileSync } from 'node:fs'

// CPU time in /proc is counted in clock ticks (USER_HZ, 100 on Linux).
export const TICKS_PER_SECOND = 100
export const MICROS_PER_TICK = 1e6 / TICKS_PER_SECOND

export const hasProc = (): boolean => existsSync('/proc/stat')

/** Fields of /proc/PID/stat after the command name (which may hold spaces), or null once the process is gone. */
function statFields(pid: number | 'self'): string[] | null {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  } catch {
    return null
  }
}

/** utime + stime of a process, in ticks (0 once it is gone). */
export function processTicks(pid: number): number {
  const fields = statFields(pid)
  return fields ? Number(fields[11]) + Number(fields[12]) : 0
}

export function parentPid(pid: number): number | null {
  const fields = statFields(pid)
  return fields ? Number(fields[1]) : null
}

/** Children this process has waited for: how the load generator's CPU is read once it has exited. */
export function reapedChildTicks(): number {
  const fields = statFields('self')!
  return Number(fields[13]) + Number(fields[14])
}

export function machineBusyTicks(): number {
  const [, ...values] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/)
  // user nice system idle iowait irq softirq steal: all but idle and iowait.
  const [user, nice, system, , , irq, softirq, steal] = values.map(Number) as number[]
  return user! + nice! + system! + irq! + softirq! + steal!
}

/** Total µs some task has waited for a CPU (/proc/pressure/cpu), or null without PSI. */
export function cpuStallMicros(): number | null {
  try {
    return Number(/^some .*total=(\d+)/m.exec(readFileSync('/proc/pressure/cpu', 'utf8'))?.[1] ?? NaN) || null
  } catch {
    return null
  }
}

export interface PostgresTicks {
  /** Backends serving this database. */
  backends: number
  /** The server's own processes: WAL writer, checkpointer, background writer, autovacuum. */
  background: number
}

// A client backend's title: "postgres: USER DATABASE HOST(PORT) STATE" (or [local] for a socket).
const CLIENT_BACKEND = /^postgres: \S+ (\S+) (?:\S+\(\d+\)|\[local\])/

/**
 * CPU of the PostgreSQL server whose postmaster is `postmaster`: its backends for `database` and its
 * background processes; backends of other databases are left out.
 */
export function postgresTicks(postmaster: number, database: string): PostgresTicks {
  const ticks: PostgresTicks = { backends: 0, background: 0 }
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const pid = Number(entry)
    if (parentPid(pid) !== postmaster) continue
    let title: string
    try {
      title = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0+$/, '').replace(/\0/g, ' ')
    } catch {
      continue
    }
    const client = CLIENT_BACKEND.exec(title)
    if (!client) ticks.background += processTicks(pid)
    else if (client[1] === database) ticks.backends += processTicks(pid)
  }
  return ticks
}
