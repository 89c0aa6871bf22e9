import { EgressError } from './egress-error.js'
import { hostAllowed } from './allow-hosts.js'

/** Same-host redirects followed before a call gives up. */
const MAX_REDIRECTS = 3
// Enough of an error body to say what went wrong.
const ERROR_BODY_BYTES = 2048
// Read this much more before cutting, so a secret echoed across the cut is scrubbed whole (values are at most 64 KiB).
const ERROR_BODY_SLACK = 65_536

export interface EgressRequest {
  method: string
  url: URL
  headers: Record<string, string>
  body?: string
  signal: AbortSignal
  /** Scrubs the secrets the request carries from text quoted back (an error body), before it is cut. */
  clean?: (text: string) => string
}

export interface EgressLimits {
  allowHosts: readonly string[]
  maxResponseBytes: number
}

export interface EgressResponse {
  status: number
  contentType: string
  body: Buffer
  url: URL
}

/**
 * One HTTP call under a source's egress rules: only allowed hosts, redirects followed only within
 * the same origin (at most MAX_REDIRECTS), the body read up to `maxResponseBytes` and the call
 * aborted past it. A non-2xx answer is an executor error with its status and the start of its body.
 */
export async function egressFetch(request: EgressRequest, limits: EgressLimits): Promise<EgressResponse> {
  let { method, url, body } = request
  const headers = { ...request.headers }
  for (let hop = 0; ; hop++) {
    if (!hostAllowed(url, limits.allowHosts)) {
      throw new EgressError(`${url.host} is not an allowed host of this source (allowHosts: ${limits.allowHosts.join(', ')})`)
    }
    let response: Response
    try {
      response = await fetch(url, { method, headers, ...(body !== undefined && { body }), redirect: 'manual', signal: request.signal })
    } catch (error) {
      if (request.signal.aborted) throw request.signal.reason
      const cause = (error as { cause?: { message?: string } }).cause?.message
      throw new EgressError(`${method} ${url.origin}${url.pathname} failed: ${cause ?? (error as Error).message}`)
    }
    const location = response.headers.get('location')
    if (response.status >= 300 && response.status < 400 && location !== null) {
      await response.body?.cancel()
      const next = new URL(location, url)
      if (next.origin !== url.origin) {
        throw new EgressError(`refused a redirect from ${url.origin} to another host (${next.origin}): calls do not follow redirects off their origin`)
      }
      if (hop >= MAX_REDIRECTS) throw new EgressError(`${method} ${url.origin}${url.pathname}: more than ${MAX_REDIRECTS} redirects`)
      // As browsers do: 303, and 301/302 after a POST, continue as a GET without the body.
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
        method = method === 'HEAD' ? 'HEAD' : 'GET'
        body = undefined
        delete headers['content-type']
      }
      url = next
      continue
    }
    const contentType = response.headers.get('content-type') ?? ''
    if (response.status < 200 || response.status >= 300) {
      const read = (await readBody(response, ERROR_BODY_BYTES + ERROR_BODY_SLACK, true)).toString('utf8')
      const text = cut((request.clean ?? ((t: string) => t))(read).trim(), ERROR_BODY_BYTES)
      throw new EgressError(
        `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''} from ${method} ${url.origin}${url.pathname}${text ? `: ${text}` : ''}`,
      )
    }
    return { status: response.status, contentType, body: await readBody(response, limits.maxResponseBytes, false), url }
  }
}

/** The body up to `max` bytes: past it, cut (`truncate`) or refused; either way the rest is never read. */
async function readBody(response: Response, max: number, truncate: boolean): Promise<Buffer> {
  const tooLarge = () => new EgressError(`the response is larger than maxResponseBytes (${max} bytes); the call was aborted`)
  const declared = Number(response.headers.get('content-length'))
  if (!truncate && Number.isFinite(declared) && declared > max) {
    await response.body?.cancel()
    throw tooLarge()
  }
  if (!response.body) return Buffer.alloc(0)
  const chunks: Buffer[] = []
  let size = 0
  const reader = response.body.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > max) {
      await reader.cancel()
      if (!truncate) throw tooLarge()
      chunks.push(Buffer.from(value.subarray(0, value.byteLength - (size - max))))
      return Buffer.concat([...chunks, Buffer.from('…')])
    }
    chunks.push(Buffer.from(value))
  }
  return Buffer.concat(chunks)
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text
}
