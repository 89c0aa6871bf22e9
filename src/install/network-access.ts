import { lookup } from 'node:dns/promises'
import { BlockList, isIP } from 'node:net'
import { SourceError } from './bundle-error.js'

/** What an admin allows a fetch beyond the default: the manager's own host, a git server's redirect to another origin. */
export interface NetworkAccess {
  /** Fetch from loopback addresses (localhost, 127.0.0.0/8, ::1, 0.0.0.0): the manager's own services. */
  allowLoopback?: boolean
  /** Let a git server redirect to another origin. */
  allowRedirects?: boolean
}

// Addresses that reach this machine itself (0.0.0.0 and :: connect to it on Linux).
const LOCAL = new BlockList()
LOCAL.addSubnet('127.0.0.0', 8, 'ipv4')
LOCAL.addSubnet('0.0.0.0', 8, 'ipv4')
LOCAL.addAddress('::1', 'ipv6')
LOCAL.addAddress('::', 'ipv6')
LOCAL.addSubnet('::ffff:127.0.0.0', 104, 'ipv6')
LOCAL.addSubnet('::ffff:0.0.0.0', 104, 'ipv6')

/** The host a git or archive URL connects to (scp-like `user@host:path` too); null for file:// and paths. */
export function hostOf(location: string): string | null {
  const scp = /^[^/@:]+@([^/:]+):(?!\/\/)/.exec(location)
  if (scp) return scp[1]!
  if (!URL.canParse(location)) return null
  const url = new URL(location)
  if (url.protocol === 'file:') return null
  return url.hostname.replace(/^\[|\]$/g, '') || null
}

/**
 * Refuse a URL whose host is (or resolves to) a loopback address unless the admin allowed it: an
 * install must not reach the manager's own services. A name that doesn't resolve is left to the fetch to report.
 */
export async function checkHost(location: string, access: NetworkAccess): Promise<void> {
  if (access.allowLoopback) return
  const host = hostOf(location)
  if (host === null) return
  let addresses: string[]
  if (isIP(host)) addresses = [host]
  else {
    try {
      addresses = (await lookup(host, { all: true, verbatim: true })).map((a) => a.address)
    } catch {
      return
    }
  }
  const local = addresses.find((address) => LOCAL.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4'))
  if (local !== undefined)
    throw new SourceError(
      `${location} is on the manager's own host (${host === local ? host : `${host} is ${local}`}), which installs don't fetch from unless an admin allows it: --allow-loopback (allowLoopback: true over HTTP)`,
    )
}
