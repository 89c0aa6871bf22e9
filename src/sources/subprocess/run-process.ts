import { spawn } from 'node:child_process'

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
  /** stdout and stderr together; past it the group is killed and the run fails. */
  maxOutputBytes: number
  signal: AbortSignal
}

/**
 * Run an executable as a subprocess in its own process group: an abort (the call's deadline),
 * output past the cap, or its own exit kills the whole group, grandchildren included. A non-zero
 * exit fails with the last 4 KiB of stderr.
 */
export function runProcess(options: RunProcessOptions): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(options.file, options.args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    })
    if (options.stdin !== undefined) {
      // A process that exits without reading its input must not fail the write.
      child.stdin!.on('error', () => {})
      child.stdin!.end(options.stdin)
    }
    const out: Buffer[] = []
    const err: Buffer[] = []
    let size = 0
    let failure: Error | null = null
    const killGroup = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL')
      } catch {
        // Already gone.
      }
    }
    const collect = (into: Buffer[]) => (chunk: Buffer) => {
      size += chunk.length
      if (size > options.maxOutputBytes) {
        failure ??= new Error(`the process wrote more than ${options.maxOutputBytes} bytes of output and was stopped`)
        killGroup()
        return
      }
      into.push(chunk)
    }
    child.stdout!.on('data', collect(out))
    child.stderr!.on('data', collect(err))
    const onAbort = () => {
      failure ??= options.signal.reason instanceof Error ? options.signal.reason : new Error('aborted')
      killGroup()
    }
    if (options.signal.aborted) onAbort()
    else options.signal.addEventListener('abort', onAbort, { once: true })
    child.on('error', (error) => {
      options.signal.removeEventListener('abort', onAbort)
      reject(new Error(`can't start it: ${error.message}`))
    })
    child.on('exit', () => {
      // Whatever the script left running in its group goes with it; pipes that a detached
      // grandchild still holds are closed after a moment, so the call always finishes.
      killGroup()
      setTimeout(() => {
        child.stdout!.destroy()
        child.stderr!.destroy()
      }, 200).unref()
    })
    child.on('close', (code, signal) => {
      options.signal.removeEventListener('abort', onAbort)
      if (failure) return reject(failure)
      const stdout = Buffer.concat(out).toString()
      const stderr = Buffer.concat(err).toString()
      if (code !== 0) {
        const tail = stderr.slice(-4096).trim()
        return reject(new Error(`it exited with ${code ?? signal}${tail ? `: ${tail}` : ''}`))
      }
      resolve({ exitCode: 0, stdout, stderr })
    })
  })
}
