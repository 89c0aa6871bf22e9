import { connect } from 'node:net'
import { z } from 'zod'
import { defineSkill } from '../../../skill/index.js'

const input = z.object({
  host: z
    .string()
    .min(1)
    .max(253)
    .regex(/^[A-Za-z0-9_.:-]+$/, 'must be a host name or an IP address')
    .describe('Host name or IP address.'),
  port: z.number().int().min(1).max(65_535),
  timeoutMs: z.number().int().min(1).max(60_000).default(5000),
})

const output = z.object({
  open: z.boolean().describe('Whether a TCP connection was established.'),
  latencyMs: z.number().describe('Time to connect, or to the failure.'),
  error: z.string().optional().describe('Why it did not connect: refused, timeout, unknown host.'),
})

type Result = z.infer<typeof output>

/** A closed port is what a probe is for, so it is a result (open: false); only the call's abort throws. */
export const probeTcp = defineSkill({
  key: 'probe_tcp',
  title: 'Check a TCP port',
  description:
    'Try to open a TCP connection from this host to host:port and report whether it connected and how long it took; the connection is closed at once.',
  class: 'safe',
  scope: 'host',
  category: 'host',
  tags: ['network', 'tcp'],
  timeoutMs: 65_000,
  input,
  output,
  run: (args, ctx) => probe(args, ctx.signal),
})

function probe(args: z.infer<typeof input>, signal: AbortSignal): Promise<Result> {
  signal.throwIfAborted()
  const start = performance.now()
  const elapsed = () => Math.round(performance.now() - start)
  return new Promise((resolve, reject) => {
    const socket = connect({ host: args.host, port: args.port })
    const done = (settle: () => void) => {
      clearTimeout(timer)
      signal.removeEventListener('abort', onAbort)
      socket.destroy()
      settle()
    }
    const timer = setTimeout(
      () => done(() => resolve({ open: false, latencyMs: elapsed(), error: `no connection within ${args.timeoutMs} ms` })),
      args.timeoutMs,
    )
    const onAbort = () => done(() => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted')))
    signal.addEventListener('abort', onAbort, { once: true })
    socket.once('connect', () => done(() => resolve({ open: true, latencyMs: elapsed() })))
    // Node's message names the code and the address (connect ECONNREFUSED 127.0.0.1:80).
    socket.once('error', (error) => done(() => resolve({ open: false, latencyMs: elapsed(), error: error.message })))
  })
}
