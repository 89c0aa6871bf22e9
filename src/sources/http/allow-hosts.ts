/** The default allowlist of a source: the host (with its port) of its URL. */
export function hostOf(url: string): string {
  return new URL(url).host.toLowerCase()
}

/**
 * Whether `url` may be called: its host (host:port as the URL has it) matches an entry exactly,
 * its host name matches an entry without a port, or it is a subdomain of a `*.suffix` entry.
 */
export function hostAllowed(url: URL, allowHosts: readonly string[]): boolean {
  const host = url.host.toLowerCase()
  const name = url.hostname.toLowerCase()
  return allowHosts.some((entry) => {
    if (entry.startsWith('*.')) return name.endsWith(entry.slice(1)) && name.length > entry.length - 1
    return entry === host || entry === name
  })
}
