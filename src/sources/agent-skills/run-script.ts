import { spawn } from 'node:child_process'

export interface ScriptResult {
  exitCode: number
  stdout: string
  stderr: string
}

export interface RunScriptOptions {
  file: string
  args: string[]
  cwd: string
  env: Record<string, string>
  maxOutputBytes: number
  signal: AbortSignal
}

/**
 * Run a script as a subprocess in its own process group: an abort (the call's deadline) or
 * output past the cap kills the whole group, grandchildren included.
 */
export function runScript(options: RunScriptOptions): Promise<ScriptResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(options.file, options.args, { cwd: options.cwd, env: options.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
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
        failure ??= new Error(`the script wrote more than ${options.maxOutputBytes} bytes of output and was stopped`)
        killGroup()
        return
      }
      into.push(chunk)
    }
    child.stdout.on('data', collect(out))
    child.stderr.on('data', collect(err))
    const onAbort = () => {
      failure ??= options.signal.reason instanceof Error ? options.signal.reason : new Error('aborted')
      killGroup()
    }
    if (options.signal.aborted) onAbort()
    else options.signal.addEventListener('abort', onAbort, { once: true })
    child.on('error', (error) => {
      options.signal.removeEventListener('abort', onAbort)
      reject(new Error(`can't start the script: ${error.message}`))
    })
    child.on('exit', () => {
      // Whatever the script left running in its group goes with it; pipes that a detached
      // grandchild still holds are closed after a moment, so the call always finishes.
      killGroup()
      setTimeout(() => {
        child.stdout.destroy()
        child.stderr.destroy()
      }, 200).unref()
    })
    child.on('close', (code, signal) => {
      options.signal.removeEventListener('abort', onAbort)
      if (failure) return reject(failure)
      const stdout = Buffer.concat(out).toString()
      const stderr = Buffer.concat(err).toString()
      if (code !== 0) {
        const tail = stderr.slice(-4096).trim()
        return reject(new Error(`the script exited with ${code ?? signal}${tail ? `: ${tail}` : ''}`))
      }
      resolve({ exitCode: 0, stdout, stderr })
    })
  })
}
