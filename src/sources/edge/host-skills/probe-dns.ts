import { Resolver } from 'node:dns/promises'
import { isIP } from 'node:net'
import { z } from 'zod'
import { defineSkill } from '../../../skill/index.js'

const RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS', 'SRV'] as const
type RecordType = (typeof RECORD_TYPES)[number]

const input = z.object({
  name: z
    .string()
    .min(1)
    .max(253)
    .regex(/^[A-Za-z0-9_.-]+$/, 'must be a DNS name (letters, digits, _, - and dots)')
    .describe('The name to look up, e.g. example.com or _sip._tcp.example.com.'),
  type: z.enum(RECORD_TYPES).default('A'),
  server: z
    .string()
    .refine(isServer, 'must be an IP address, "ip:port" or "[ipv6]:port"')
    .optional()
    .describe("The DNS server to ask; without it, the host's own resolvers."),
  timeoutMs: z.number().int().min(1).max(60_000).default(5000),
})

const output = z.object({
  answers: z.array(z.string()).describe('One string per record: MX as "priority exchange", SRV as "priority weight port target", TXT chunks joined.'),
  latencyMs: z.number(),
  error: z
    .string()
    .optional()
    .describe('The resolver code when there is no answer: ENOTFOUND (no such name), ENODATA (no record of this type), ETIMEOUT, ECONNREFUSED, SERVFAIL...'),
})

type Result = z.infer<typeof output>

/**
 * "No such name" and "the server did not answer" are what a probe is for, so they are results
 * (no answers, with the resolver's code in `error`); only the call's own abort throws.
 */
export const probeDns = defineSkill({
  key: 'probe_dns',
  title: 'Look up a DNS name',
  description:
    "Resolve a name from this host (A, AAAA, CNAME, MX, TXT, NS or SRV), with the host's resolvers or a given server, and report the answers and latency. " +
    'A name that does not exist gives no answers and error ENOTFOUND.',
  class: 'safe',
  scope: 'host',
  category: 'host',
  tags: ['network', 'dns'],
  timeoutMs: 65_000,
  input,
  output,
  run: (args, ctx) => lookup(args, ctx.signal),
})

async function lookup(args: z.infer<typeof input>, signal: AbortSignal): Promise<Result> {
  signal.throwIfAborted()
  // One try: the probe's timeout is the whole budget, not per retry.
  const resolver = new Resolver({ timeout: args.timeoutMs, tries: 1 })
  if (args.server) resolver.setServers([args.server])
  const start = performance.now()
  const elapsed = () => Math.round(performance.now() - start)
  const onAbort = () => resolver.cancel()
  signal.addEventListener('abort', onAbort, { once: true })
  // c-ares applies its timeout per server: with several system resolvers the budget is kept here.
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    resolver.cancel()
  }, args.timeoutMs)
  try {
    return { answers: await query(resolver, args.name, args.type), latencyMs: elapsed() }
  } catch (error) {
    signal.throwIfAborted()
    const code = timedOut ? 'ETIMEOUT' : (error as NodeJS.ErrnoException).code
    if (!code) throw error
    return { answers: [], latencyMs: elapsed(), error: code }
  } finally {
    clearTimeout(timer)
    signal.removeEventListener('abort', onAbort)
  }
}

async function query(resolver: Resolver, name: string, type: RecordType): Promise<string[]> {
  switch (type) {
    case 'A':
      return resolver.resolve4(name)
    case 'AAAA':
      return resolver.resolve6(name)
    case 'CNAME':
      return resolver.resolveCname(name)
    case 'NS':
      return resolver.resolveNs(name)
    case 'MX':
      return (await resolver.resolveMx(name)).sort((a, b) => a.priority - b.priority).map((mx) => `${mx.priority} ${mx.exchange}`)
    case 'TXT':
      return (await resolver.resolveTxt(name)).map((chunks) => chunks.join(''))
    case 'SRV':
      return (await resolver.resolveSrv(name)).map((srv) => `${srv.priority} ${srv.weight} ${srv.port} ${srv.name}`)
  }
}

function isServer(server: string): boolean {
  if (isIP(server)) return true
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(server)
  if (!match) return false
  const port = Number(match[3])
  const host = match[1] ?? match[2]!
  return port >= 1 && port <= 65_535 && (match[1] ? isIP(host) === 6 : isIP(host) === 4)
}
