import { spawn, type ChildProcess } from 'node:child_process'
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { processExists } from './process-exists.js'

// The watchdog: reads `+ pgid` and `- pgid` lines from the manager, and when its stdin closes,
// which the kernel does when the manager dies however it dies, kills the groups still running.
// It ignores the signals a terminal or a service manager sends the manager's group.
const WATCHDOG = `trap '' INT TERM HUP QUIT
groups=' '
while read -r op id; do
  case $op in
    +) groups="$groups$id " ;;
    -) case $groups in *" $id "*) groups="\${groups%% $id *} \${groups#* $id }" ;; esac ;;
  esac
done
for id in $groups; do kill -s KILL -- "-$id" 2>/dev/null; done`

/** When the process started, in clock ticks since boot (Linux), so a recycled pid is never taken for it. */
export function processStartTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields after the command name, which may itself hold spaces and parentheses.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null
  } catch {
    return null
  }
}

const FILE = /^(?<manager>[0-9A-Z]+)\.(?<pid>\d+)\.groups$/

/**
 * The subprocess groups a manager has running. A watchdog process (one per manager, started with
 * the first group) kills them the moment the manager dies; a file of the manager's own under the
 * data dir (`+pgid start` when one starts, `-pgid` when it ends) lets the next manager on this host
 * kill what is left if the watchdog could not, before it marks the calls they served interrupted.
 */
export class ProcessGroups {
  readonly #file: string
  readonly #running = new Set<number>()
  /** The file, opened for appending with the first group: two writes a call, not an open, write and close each. */
  #fd: number | null = null
  #watchdog: ChildProcess | null = null
  #closed = false

  constructor(
    readonly dir: string,
    managerId: string,
  ) {
    this.#file = join(dir, `${managerId}.${process.pid}.groups`)
  }

  started(pgid: number): void {
    if (this.#fd === null) {
      mkdirSync(this.dir, { recursive: true })
      this.#fd = openSync(this.#file, 'a')
    }
    writeSync(this.#fd, `+${pgid} ${processStartTime(pgid) ?? '-'}\n`)
    this.#running.add(pgid)
    this.#tell(`+ ${pgid}\n`)
  }

  ended(pgid: number): void {
    this.#running.delete(pgid)
    this.#tell(`- ${pgid}\n`)
    try {
      if (this.#fd !== null) writeSync(this.#fd, `-${pgid}\n`)
    } catch {
      // The file went with a clean shutdown or the data dir; nothing is left to kill then.
    }
  }

  /** At a clean shutdown: the watchdog kills whatever is still running, and the file goes. */
  close(): void {
    this.#closed = true
    this.#watchdog?.stdin?.end()
    this.#watchdog = null
    if (this.#fd !== null) closeSync(this.#fd)
    this.#fd = null
    rmSync(this.#file, { force: true })
  }

  #tell(line: string): void {
    if (this.#closed) return
    if (!this.#watchdog) {
      const watchdog = spawn('/bin/sh', ['-c', WATCHDOG], { detached: true, stdio: ['pipe', 'ignore', 'ignore'], env: {} })
      watchdog.stdin!.on('error', () => {})
      watchdog.on('error', () => {})
      // A watchdog that died is replaced at the next group, and told what is running.
      watchdog.on('exit', () => {
        if (this.#watchdog === watchdog) this.#watchdog = null
      })
      // It must never hold the manager's process open.
      watchdog.unref()
      ;(watchdog.stdin as unknown as { unref?: () => void }).unref?.()
      this.#watchdog = watchdog
      line = [...this.#running].map((pgid) => `+ ${pgid}\n`).join('')
    }
    this.#watchdog.stdin!.write(line)
  }

  /**
   * Kill the groups left by managers of this host whose process is gone, and forget them.
   * A group is killed only while its leader is the very process recorded (same pid, same start).
   */
  static reap(dir: string): number {
    let files: string[]
    try {
      files = readdirSync(dir)
    } catch {
      return 0
    }
    let killed = 0
    for (const name of files) {
      const pid = Number(FILE.exec(name)?.groups?.pid)
      if (!pid || processExists(pid)) continue
      const file = join(dir, name)
      const running = new Map<number, string>()
      for (const line of readFileSync(file, 'utf8').split('\n')) {
        const [id, start] = line.slice(1).split(' ')
        if (line.startsWith('+')) running.set(Number(id), start ?? '-')
        else if (line.startsWith('-')) running.delete(Number(id))
      }
      for (const [pgid, start] of running) {
        if (start === '-' || processStartTime(pgid) !== start) continue
        try {
          process.kill(-pgid, 'SIGKILL')
          killed++
        } catch {
          // Gone between the check and the kill.
        }
      }
      rmSync(file, { force: true })
    }
    return killed
  }
}
