import { spawn } from 'node:child_process'
import type { ProcessGroups } from './process-groups.js'

const STDERR_KEPT = 64 * 1024

export interface ProcessResult {
  exitCode: number
  stdout: string
  stderr: string
}

export interface RunProcessOptions {
  file: string
  args: string[]
  cwd: string
  env: Record<string, string>
  /** Written to stdin, which is then closed; without it stdin is empty. */
  stdin?: string
  /** stdout cap: past it the group is killed and the run fails (stderr keeps its last 64 KiB). */
  maxOutputBytes: number
  signal: AbortSignal
  /** Records the group while it runs, so it dies with the manager (and after a crash, at the next start). */
  groups?: ProcessGroups
}

/**
 * Run an executable as a subprocess in its own process group: an abort (the call's deadline),
 * output past the cap, its own exit or the death of the manager (with `groups`) kills the whole
 * group, grandchildren included. A non-zero exit fails with the last 4 KiB of stderr.
 */
export function runProcess(options: RunProcessOptions): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(options.file, options.args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    })
    if (child.pid) options.groups?.started(child.pid)
    if (options.stdin !== undefined) {
      // A process that exits without reading its input must not fail the write.
      child.stdin!.on('error', () => {})
      child.stdin!.end(options.stdin)
    }
    const out: Buffer[] = []
    let err = Buffer.alloc(0)
    let size = 0
    let failure: Error | null = null
    const killGroup = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL')
      } catch {
        // Already gone.
      }
    }
    child.stdout!.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > options.maxOutputBytes) {
        failure ??= new Error(`the process wrote more than ${options.maxOutputBytes} bytes to stdout and was stopped`)
        killGroup()
        return
      }
      out.push(chunk)
    })
    // stderr is diagnostics: only its tail is kept, however much is written.
    child.stderr!.on('data', (chunk: Buffer) => {
      err = Buffer.concat([err, chunk])
      if (err.length > STDERR_KEPT) err = err.subarray(err.length - STDERR_KEPT)
    })
    const onAbort = () => {
      failure ??= options.signal.reason instanceof Error ? options.signal.reason : new Error('aborted')
      killGroup()
    }
    if (options.signal.aborted) onAbort()
    else options.signal.addEventListener('abort', onAbort, { once: true })
    child.on('error', (error) => {
      options.signal.removeEventListener('abort', onAbort)
      // The error names the file by its server path, which callers never see.
      const code = (error as NodeJS.ErrnoException).code ?? 'failed'
      reject(new Error(`can't start it (${code}): it is missing, not executable, or its #! interpreter is missing`))
    })
    child.on('exit', () => {
      // Whatever the script left running in its group goes with it; pipes that a detached
      // grandchild still holds are closed after a moment, so the call always finishes.
      killGroup()
      if (child.pid) options.groups?.ended(child.pid)
      setTimeout(() => {
        child.stdout!.destroy()
        child.stderr!.destroy()
      }, 200).unref()
    })
    child.on('close', (code, signal) => {
      options.signal.removeEventListener('abort', onAbort)
      if (failure) return reject(failure)
      const stdout = Buffer.concat(out).toString()
      const stderr = err.toString()
      if (code !== 0) {
        const tail = stderr.slice(-4096).trim()
        return reject(new Error(`it exited with ${code ?? signal}${tail ? `: ${tail}` : ''}`))
      }
      resolve({ exitCode: 0, stdout, stderr })
    })
  })
}
