// The tests' OAuth service is the demo's: one real authorization server and API, exercised by both.
import { defineSkill } from '../skill/index.js'
import { SERVICE_CLIENT as CLIENT } from '../../examples/services/demo-oauth.js'
export { startTestOAuthService, SERVICE_CLIENT, SERVICE_SCOPES, type TestOAuthService } from '../../examples/services/demo-oauth.js'

/** Where a connect link led one browser: the callback's answer, and the cookies that browser holds to replay it. */
export interface ConnectRoundTrip {
  /** The callback's status (302 back to the console), or /oauth/start's when it refused. */
  status: number
  location: string | null
  headers: Headers
  /** The error page, when there is one. */
  page: string
  /** The provider's redirect back (with code and state), when the start went through. */
  callback: URL | null
  /** The browser's cookies after the start: send them to replay the callback in the same browser. */
  cookie: string
}

/**
 * Open a connect link as one browser (cookies kept), sign in at the provider with `signIn` (the test
 * service's `approve`, or the identity provider's `signIn`), and follow the redirect back to skillplane.
 */
export async function connectInBrowser(
  link: string,
  signIn: (providerUrl: string) => Promise<URL>,
  options: { cookie?: string } = {},
): Promise<ConnectRoundTrip> {
  const jar = new Map<string, string>(
    (options.cookie ?? '')
      .split(/;\s*/)
      .filter(Boolean)
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)] as [string, string]),
  )
  const header = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ')
  const started = await fetch(link, { redirect: 'manual', headers: { cookie: header() } })
  for (const set of started.headers.getSetCookie()) {
    const [pair] = set.split(';')
    jar.set(pair!.slice(0, pair!.indexOf('=')), pair!.slice(pair!.indexOf('=') + 1))
  }
  if (started.status !== 302 || !started.headers.get('location')?.startsWith('http')) {
    return {
      status: started.status,
      location: started.headers.get('location'),
      headers: started.headers,
      page: await started.text(),
      callback: null,
      cookie: header(),
    }
  }
  const callback = await signIn(started.headers.get('location')!)
  const back = await fetch(callback, { redirect: 'manual', headers: { cookie: header() } })
  return {
    status: back.status,
    location: back.headers.get('location'),
    headers: back.headers,
    page: back.status === 302 ? '' : await back.text(),
    callback,
    cookie: header(),
  }
}

/**
 * A skill that asks the test service's API whose account its token is for (`{ sub, scope }`); with
 * `echo`, it also returns the token itself, as a careless skill might (it must reach neither a model nor the audit).
 */
export function whoamiSkill(
  api: () => string,
  options: {
    key: string
    provider: string
    description?: string
    title?: string
    scopes?: string[]
    account?: 'person' | 'service'
    agents?: string[]
    echo?: boolean
  },
) {
  const { key, provider, description = 'Ask the test service whose account this is', title, scopes, account, agents, echo } = options
  return defineSkill({
    key,
    ...(title && { title }),
    description,
    class: 'safe',
    ...(agents && { agents }),
    oauth: { provider, ...(scopes && { scopes }), ...(account && { account }) },
    async run(_input, ctx) {
      const response = await fetch(`${api()}/whoami`, { headers: { authorization: `Bearer ${ctx.secrets.get(provider)}` }, signal: ctx.signal })
      if (!response.ok) throw new Error(`the service answered ${response.status}: ${await response.text()}`)
      const who = (await response.json()) as { sub: string; scope: string }
      return echo ? { ...who, raw: ctx.secrets.get(provider) } : who
    },
  })
}

/** The test service as a provider of the config: skillplane's confidential client, its secret in the secrets store under `secret`. */
export function serviceProvider(service: { issuer: string }, secret: string, title?: string) {
  return { ...(title && { title }), issuer: service.issuer, clientId: CLIENT.clientId, clientSecret: { secret }, scopes: ['issues:read'] }
}
