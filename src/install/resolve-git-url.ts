import { SourceError } from './bundle-error.js'
import { checkHost, type NetworkAccess } from './network-access.js'

const PROBE = '/info/refs?service=git-upload-pack'
const MAX_HOPS = 5
const PROBE_TIMEOUT_MS = 30_000

/**
 * The URL to clone, asking an HTTP(S) git server first where it redirects: git itself runs with
 * redirects off, so a redirect is followed here, within the origin (or http to https on the same
 * host), each hop's host checked; another origin is refused unless the admin allowed it.
 */
export async function resolveGitUrl(url: string, access: NetworkAccess): Promise<string> {
  await checkHost(url, access)
  if (!/^https?:\/\//i.test(url)) return url
  let base = url.replace(/\/+$/, '')
  for (let hop = 0; hop < MAX_HOPS; hop++) {
    let response: Response
    try {
      response = await fetch(base + PROBE, { redirect: 'manual', signal: AbortSignal.timeout(PROBE_TIMEOUT_MS), headers: { 'user-agent': 'git/skillplane' } })
    } catch {
      // Unreachable here (a proxy only git knows of, a server down): git tries, and reports what is wrong.
      return base
    }
    await response.body?.cancel()
    const location = response.headers.get('location')
    if (response.status < 300 || response.status >= 400 || location === null) return base
    const next = new URL(location, base + PROBE)
    if (!next.href.endsWith(PROBE)) throw new SourceError(`${url} redirects to ${next.href}, which is not a git repository's address`)
    const nextBase = next.href.slice(0, -PROBE.length)
    if (!sameOrigin(new URL(base), next) && !access.allowRedirects)
      throw new SourceError(
        `${url} redirects to ${nextBase}, another origin, which installs don't follow unless an admin allows it: install from ${nextBase}, or pass --allow-redirects (allowRedirects: true over HTTP)`,
      )
    await checkHost(nextBase, access)
    base = nextBase
  }
  throw new SourceError(`${url} redirects more than ${MAX_HOPS} times`)
}

// An upgrade from http to https on the same host, default port to default port, keeps the origin, as far as trust goes.
function sameOrigin(from: URL, to: URL): boolean {
  return (
    from.origin === to.origin || (from.protocol === 'http:' && to.protocol === 'https:' && from.hostname === to.hostname && from.port === '' && to.port === '')
  )
}
