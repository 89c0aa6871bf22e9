import { spawn } from 'node:child_process'
import { stat } from 'node:fs/promises'
import { constants } from 'node:os'
import { z } from 'zod'
import { defineSkill } from '../../../skill/index.js'

/** stdout and stderr each keep their first this many bytes; the rest is read and dropped. */
export const COMMAND_OUTPUT_CAP = 64 * 1024

const input = z.object({
  command: z.string().min(1).max(8192).describe('Shell text, run by /bin/sh -c.'),
  cwd: z.string().regex(/^\//, 'must be an absolute path').optional().describe('Working folder (absolute); default /.'),
  timeoutMs: z.number().int().min(1).max(600_000).default(30_000).describe('Kill the command (and all it started) after this long.'),
})

const output = z.object({
  exitCode: z.number().int().describe('The exit status; 128 + the signal number when the command was killed, as a shell reports it.'),
  signal: z.string().optional().describe('The signal that killed the command, when one did.'),
  timedOut: z.boolean().describe('Whether it was killed for running past timeoutMs.'),
  stdout: z.string(),
  stderr: z.string(),
  truncated: z.boolean().describe(`Whether stdout or stderr was cut to its first ${COMMAND_OUTPUT_CAP} bytes.`),
})

type Result = z.infer<typeof output>

/**
 * Shell access to the host, offered only when the edge was started with --allow-shell. A non-zero
 * exit is a result, not an error; so is running out of time (partial output is still useful).
 */
export const runCommand = defineSkill({
  key: 'run_command',
  title: 'Run a shell command',
  description:
    'Run a shell command on this host with /bin/sh -c and return its exit code, stdout and stderr (each cut to 64 KiB). ' +
    'It runs with only PATH in its environment, no stdin, and is killed with everything it started after timeoutMs.',
  class: 'dangerous',
  scope: 'host',
  category: 'host',
  tags: ['shell'],
  timeoutMs: 610_000,
  input,
  output,
  run: async (args, ctx) => {
    const cwd = args.cwd ?? '/'
    const folder = await stat(cwd).catch(() => null)
    if (!folder?.isDirectory()) throw new Error(`cwd ${cwd} is not a folder on this host`)
    return execute(args.command, cwd, args.timeoutMs, ctx.signal)
  },
})

// runProcess fails on a non-zero exit and on output past its cap; a shell needs both as results.
function execute(command: string, cwd: string, timeoutMs: number, signal: AbortSignal): Promise<Result> {
  signal.throwIfAborted()
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', command], {
      cwd,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const stdout = capture(child.stdout)
    const stderr = capture(child.stderr)
    let timedOut = false
    // Its own process group: killing it takes along everything the command started.
    const killGroup = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL')
      } catch {
        // Already gone.
      }
    }
    const timer = setTimeout(() => {
      timedOut = true
      killGroup()
    }, timeoutMs)
    signal.addEventListener('abort', killGroup, { once: true })
    const cleanup = () => {
      clearTimeout(timer)
      signal.removeEventListener('abort', killGroup)
    }
    child.on('error', (error: NodeJS.ErrnoException) => {
      cleanup()
      reject(new Error(`can't start /bin/sh (${error.code ?? error.message})`))
    })
    child.on('exit', () => {
      // What the command left running goes with it, and pipes a stray grandchild still holds are
      // closed after a moment, so the call always finishes.
      killGroup()
      setTimeout(() => {
        child.stdout.destroy()
        child.stderr.destroy()
      }, 200).unref()
    })
    child.on('close', (code, killedBy) => {
      cleanup()
      if (signal.aborted) return reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'))
      resolve({
        exitCode: code ?? 128 + (killedBy ? constants.signals[killedBy] : 0),
        ...(killedBy && { signal: killedBy }),
        timedOut,
        stdout: stdout.text(),
        stderr: stderr.text(),
        truncated: stdout.truncated() || stderr.truncated(),
      })
    })
  })
}

function capture(stream: NodeJS.ReadableStream): { text(): string; truncated(): boolean } {
  const chunks: Buffer[] = []
  let size = 0
  let dropped = false
  // Past the cap the stream is still drained, so the command never blocks on a full pipe.
  stream.on('data', (chunk: Buffer) => {
    const room = COMMAND_OUTPUT_CAP - size
    if (chunk.length > room) dropped = true
    if (room <= 0) return
    const kept = chunk.subarray(0, room)
    chunks.push(kept)
    size += kept.length
  })
  return { text: () => Buffer.concat(chunks).toString(), truncated: () => dropped }
}
