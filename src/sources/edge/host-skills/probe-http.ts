import { request as httpRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import type { Socket } from 'node:net'
import type { TLSSocket } from 'node:tls'
import { z } from 'zod'
import { defineSkill } from '../../../skill/index.js'

// Enough to see that a body starts flowing; the rest is never read.
const BODY_BYTES = 4096
const DAY_MS = 86_400_000

const input = z.object({
  url: z
    .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
    // Credentials in a URL would land in the audit trail and go out before TLS verification is decided.
    .refine((url) => !/^[a-z]+:\/\/[^/?#]*@/i.test(url), 'must not carry a user name or password')
    .describe('The URL to request (http or https), without credentials.'),
  method: z.enum(['GET', 'HEAD', 'OPTIONS', 'POST']).default('GET').describe('HTTP method; sent without a body.'),
  expectStatus: z.number().int().min(100).max(599).optional().describe('The status that counts as ok; without it any 2xx or 3xx does.'),
  timeoutMs: z.number().int().min(1).max(60_000).default(10_000).describe('Give up after this long (connect and response headers).'),
  insecure: z.boolean().default(false).describe('Accept a certificate that does not verify (self-signed, expired, wrong name); it is still reported.'),
})

const tls = z.object({
  validTo: z.string().describe('When the certificate expires (ISO 8601).'),
  daysLeft: z.number().int().describe('Whole days until it expires; negative once it has.'),
  issuer: z.string(),
  subject: z.string(),
  authorized: z.boolean().describe('Whether the certificate verified against the trusted CAs and the host name.'),
  authorizationError: z.string().optional(),
})

const output = z.object({
  status: z.number().int().describe('The HTTP status, or 0 when no response came (see error).'),
  ok: z.boolean(),
  latencyMs: z.number().describe('Time to the response headers, or to the failure.'),
  error: z.string().optional().describe('Why no response came: connection refused, timeout, DNS, TLS verification.'),
  tls: tls.optional().describe('The server certificate, for https URLs that got as far as the handshake.'),
})

type Result = z.infer<typeof output>

/**
 * An unreachable or failing endpoint is what a probe is for, so it is a result (status 0 with
 * `error`), never a thrown error; only the call's own abort throws.
 */
export const probeHttp = defineSkill({
  key: 'probe_http',
  title: 'Probe an HTTP endpoint',
  description:
    'Request a URL from this host and report the status, latency and, for https, the certificate (expiry, issuer, whether it verifies). ' +
    'Does not follow redirects. A connection failure is reported as status 0 with an error.',
  class: 'safe',
  scope: 'host',
  category: 'host',
  tags: ['network', 'http', 'tls'],
  timeoutMs: 65_000,
  input,
  output,
  run: (args, ctx) => probe(args, ctx.signal),
})

function probe(args: z.infer<typeof input>, signal: AbortSignal): Promise<Result> {
  signal.throwIfAborted()
  const url = new URL(args.url)
  const start = performance.now()
  const elapsed = () => Math.round(performance.now() - start)
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest
  return new Promise((resolve, reject) => {
    let certificate: Result['tls']
    let result: Result | null = null
    // agent: false: a fresh connection each time, so latency and certificate are this probe's own.
    const req = request(url, { method: args.method, agent: false, rejectUnauthorized: false, headers: { 'user-agent': 'skillplane-probe' } })
    const finish = (value: Result) => {
      result ??= value
      cleanup()
      req.destroy()
      resolve(result)
    }
    const fail = (error: string) => finish({ status: 0, ok: false, latencyMs: elapsed(), error, ...(certificate && { tls: certificate }) })
    const timer = setTimeout(() => (result ? finish(result) : fail(`no response within ${args.timeoutMs} ms`)), args.timeoutMs)
    const onAbort = () => {
      cleanup()
      req.destroy()
      reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'))
    }
    const cleanup = () => {
      clearTimeout(timer)
      signal.removeEventListener('abort', onAbort)
    }
    signal.addEventListener('abort', onAbort, { once: true })
    req.on('socket', (socket: Socket) => {
      if (!('encrypted' in socket)) return
      const secure = socket as TLSSocket
      // Verification is decided here rather than by rejectUnauthorized, so that an untrusted
      // certificate is still described; the request carries no body or credentials to protect.
      secure.once('secureConnect', () => {
        certificate = describeCertificate(secure)
        if (!secure.authorized && !args.insecure) {
          fail(`the certificate does not verify (${secure.authorizationError?.toString() ?? 'unknown reason'}); insecure: true accepts it`)
        }
      })
    })
    req.on('response', (res: IncomingMessage) => {
      const status = res.statusCode ?? 0
      const ok = args.expectStatus === undefined ? status >= 200 && status < 400 : status === args.expectStatus
      result = { status, ok, latencyMs: elapsed(), ...(certificate && { tls: certificate }) }
      let read = 0
      res.on('data', (chunk: Buffer) => {
        read += chunk.length
        if (read >= BODY_BYTES) finish(result!)
      })
      res.on('end', () => finish(result!))
      res.on('error', () => finish(result!))
    })
    req.on('error', (error: Error) => {
      if (result || signal.aborted) return
      // Node's message names the code and the address (connect ECONNREFUSED 127.0.0.1:80).
      fail(error.message)
    })
    req.end()
  })
}

function describeCertificate(socket: TLSSocket): Result['tls'] {
  const cert = socket.getPeerX509Certificate()
  if (!cert) return undefined
  const validTo = new Date(cert.validTo)
  return {
    validTo: validTo.toISOString(),
    daysLeft: Math.floor((validTo.getTime() - Date.now()) / DAY_MS),
    issuer: cert.issuer.split('\n').join(', '),
    subject: cert.subject.split('\n').join(', '),
    authorized: socket.authorized,
    ...(socket.authorizationError && { authorizationError: socket.authorizationError.toString() }),
  }
}
