import type { MiddlewareHandler } from 'hono'
import { errorResponse } from '../error-response.js'

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]']
const LOOPBACK_BINDS = new Set(['localhost', '127.0.0.1', '::1', '[::1]'])

export interface OriginRules {
  /** Host names (no port) the server answers to; null accepts any Host. */
  hosts: readonly string[] | null
  /** Whole origins (`https://app.example.com`) accepted beside those of the allowed hosts. */
  origins: readonly string[]
}

/**
 * The rules for a server bound to `bindHost` (unknown: an app embedding skillplane). Configured
 * names win; otherwise a loopback server answers to loopback names only, and a server on another
 * interface to any Host (its operator lists the names clients use in `http.allowedHosts`).
 */
export function originRules(config: { allowedHosts?: readonly string[]; allowedOrigins?: readonly string[] }, bindHost?: string): OriginRules {
  const hosts = config.allowedHosts?.length
    ? config.allowedHosts.map((h) => h.toLowerCase())
    : bindHost === undefined || LOOPBACK_BINDS.has(bindHost)
      ? LOOPBACK_NAMES
      : null
  return { hosts, origins: config.allowedOrigins ?? [] }
}

/**
 * DNS-rebinding protection (the MCP specification's): a request whose Host is not a name this
 * server answers to, or that a browser sent from a page of another origin, is refused with 403.
 * Requests without an Origin header (MCP clients that are not browsers) need only a good Host.
 */
export function checkOrigin(rules: OriginRules): MiddlewareHandler {
  return async (c, next) => {
    // A request made in-process (app.request) has no Host header: its URL names the host.
    const given = c.req.header('host') ?? new URL(c.req.url).host
    const host = hostnameOf(`http://${given}`)
    if (host === null || (rules.hosts !== null && !rules.hosts.includes(host))) {
      return errorResponse(c, 'denied', `Host ${JSON.stringify(given)} is not a name this server answers to on ${c.req.path} (http.allowedHosts)`)
    }
    const origin = c.req.header('origin')
    if (origin !== undefined && !rules.origins.includes(origin)) {
      const from = hostnameOf(origin)
      const allowed = rules.hosts ?? [host]
      if (from === null || !allowed.includes(from)) {
        return errorResponse(c, 'denied', `requests from origin ${JSON.stringify(origin)} are refused on ${c.req.path} (http.allowedOrigins)`)
      }
    }
    return next()
  }
}

function hostnameOf(url: string): string | null {
  try {
    const hostname = new URL(url).hostname.toLowerCase()
    return hostname === '' ? null : hostname
  } catch {
    return null
  }
}
