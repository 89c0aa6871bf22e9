import { isIP } from 'node:net'
import type { MiddlewareHandler } from 'hono'
import { errorResponse } from '../error-response.js'

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]']
const LOOPBACK_BINDS = new Set(['localhost', '127.0.0.1', '::1', '[::1]'])

export interface OriginRules {
  /** Host names (no port) the server answers to; null: any IP address and localhost, no other name. */
  hosts: readonly string[] | null
  /** Whole origins (`https://app.example.com`) accepted beside those of the allowed hosts. */
  origins: readonly string[]
}

/**
 * The rules for a server bound to `bindHost` (unknown: an app embedding skillplane). Configured
 * names win; otherwise a loopback server answers to loopback names only, and a server on another
 * interface to its addresses (any IP literal) but to no DNS name until it is listed in
 * `http.allowedHosts`: a rebinding page always arrives under a DNS name of the attacker's.
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
    if (host === null || !answersTo(rules, host)) {
      return errorResponse(c, 'denied', `Host ${JSON.stringify(given)} is not a name this server answers to on ${c.req.path}: list it in http.allowedHosts`)
    }
    const origin = c.req.header('origin')
    if (origin !== undefined && !rules.origins.includes(origin)) {
      const from = hostnameOf(origin)
      // With no names listed, a page must come from the very address the request was sent to.
      if (from === null || (rules.hosts === null ? from !== host : !rules.hosts.includes(from))) {
        return errorResponse(c, 'denied', `requests from origin ${JSON.stringify(origin)} are refused on ${c.req.path} (http.allowedOrigins)`)
      }
    }
    return next()
  }
}

function answersTo(rules: OriginRules, hostname: string): boolean {
  if (rules.hosts !== null) return rules.hosts.includes(hostname)
  return hostname === 'localhost' || isIP(hostname.replace(/^\[(.*)\]$/, '$1')) !== 0
}

function hostnameOf(url: string): string | null {
  try {
    const hostname = new URL(url).hostname.toLowerCase()
    return hostname === '' ? null : hostname
  } catch {
    return null
  }
}
