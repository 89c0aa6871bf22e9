import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider'
import { createLocalJWKSet, exportJWK, generateKeyPair, jwtVerify, type JWK } from 'jose'

// The demo's "depot accounts" service, and the tests' OAuth service: a real OAuth 2 authorization server
// (oidc-provider, a dev dependency) with a sign-in page that takes any account name, and an API that checks its tokens.

/** skillplane's confidential client (the tests'): any loopback `/oauth/callback`. */
export const SERVICE_CLIENT = { clientId: 'skillplane', clientSecret: 'service-client-secret-8c41e2' }
/** The demo's public client (PKCE, no secret): any loopback `/oauth/callback`. */
export const DEMO_CLIENT_ID = 'skillplane-demo'
/** The scopes the test service's API knows. */
export const SERVICE_SCOPES = ['issues:read', 'issues:write']

export interface TestOAuthService {
  /** The authorization server's issuer (metadata at /.well-known/oauth-authorization-server and openid-configuration). */
  issuer: string
  /** The API: GET /api/whoami answers { sub, scope } for a valid bearer token, 401 otherwise; GET /api/echo repeats the Authorization header. */
  api: string
  /** Follow an authorization URL through the service's login and consent as `account`; returns where it sends the browser back. */
  approve(authorizationUrl: URL | string, account: string, decision?: 'allow' | 'deny'): Promise<URL>
  /** Refresh grants the token endpoint answered. */
  readonly refreshes: number
  /** Tokens revoked through the revocation endpoint (RFC 7009). */
  readonly revocations: number
  /** While down, the token endpoint answers 503. */
  setTokenEndpointDown(down: boolean): void
  /** Revoke every refresh token of an account at the provider, as a person removing the app in the service's settings. */
  revokeRefreshTokens(account: string): Promise<number>
  /** Scopes an account grants at consent (default: all it is asked for). */
  limitConsent(account: string, scopes: string[]): void
  close(): Promise<void>
}

/**
 * A SaaS-like service on 127.0.0.1: a real OAuth 2 authorization server (oidc-provider) issuing
 * authorization codes, short-lived JWT access tokens for its API and refresh tokens, with
 * revocation; and the API itself, which checks those tokens.
 */
export async function startTestOAuthService(options: { accessTokenTtlSeconds?: number; port?: number } = {}): Promise<TestOAuthService> {
  // Loaded when started: evaluating the demo's config must stay quick.
  const { default: Provider } = await import('oidc-provider')
  // Its own in-memory store, subclassed: the library's warns on every start that it is for development, which this service is.
  const memory = 'oidc-provider/lib/adapters/memory_adapter.js'
  const { default: MemoryAdapter } = (await import(memory)) as { default: new (name: string) => object }
  const server = createServer()
  server.listen(options.port ?? 0, '127.0.0.1')
  await once(server, 'listening')
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const api = `${issuer}/api`
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true })
  const kid = 'service-key-1'
  const jwks = createLocalJWKSet({ keys: [{ ...(await exportJWK(publicKey)), kid, alg: 'RS256' } as JWK] })
  const consent = new Map<string, string[]>()
  let tokenEndpointDown = false
  let refreshes = 0
  let revocations = 0
  const refreshTokens = new Map<string, Array<{ destroy(): Promise<void> }>>()

  const configuration: Configuration = {
    adapter: class extends MemoryAdapter {} as never,
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' }] as never },
    clients: [
      {
        client_id: SERVICE_CLIENT.clientId,
        client_secret: SERVICE_CLIENT.clientSecret,
        redirect_uris: ['http://127.0.0.1/oauth/callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
      {
        client_id: DEMO_CLIENT_ID,
        redirect_uris: ['http://127.0.0.1/oauth/callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      },
    ],
    scopes: ['openid', 'offline_access'],
    findAccount: (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id }) }),
    features: {
      devInteractions: { enabled: false },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        // Every token is for the API, asked for or not.
        defaultResource: () => api,
        // An account limited at consent is offered only those scopes: the rest of what it asks for is not granted.
        getResourceServerInfo: (ctx) => ({
          scope: (consent.get(accountOf(ctx)) ?? SERVICE_SCOPES).join(' '),
          audience: api,
          accessTokenFormat: 'jwt',
          accessTokenTTL: options.accessTokenTtlSeconds ?? 600,
          jwt: { sign: { alg: 'RS256' } },
        }),
        useGrantedResource: () => true,
      },
    },
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    interactions: { url: (_ctx: KoaContextWithOIDC, interaction) => `/interaction/${interaction.uid}` },
    pkce: { required: () => true },
    cookies: { keys: ['test-oauth-service-cookie-key'] },
    ttl: { Session: 600, Grant: 3600, AuthorizationCode: 60, AccessToken: options.accessTokenTtlSeconds ?? 600, RefreshToken: 3600, Interaction: 600 },
  }
  const provider = new Provider(issuer, configuration)
  provider.on('server_error', (_ctx, error) => console.error('OAuth service:', error))
  provider.on('grant.success', (ctx: KoaContextWithOIDC) => {
    if ((ctx.oidc.params as { grant_type?: string }).grant_type === 'refresh_token') refreshes++
  })
  provider.on('refresh_token.saved', (token: { accountId: string; destroy(): Promise<void> }) => {
    refreshTokens.set(token.accountId, [...(refreshTokens.get(token.accountId) ?? []), token])
  })
  // skillplane's test servers listen on any loopback port: their callback is allowed wherever they are.
  const allowed = provider.Client.prototype.redirectUriAllowed
  provider.Client.prototype.redirectUriAllowed = function (this: InstanceType<typeof provider.Client>, value: string) {
    return /^http:\/\/127\.0\.0\.1:\d+\/oauth\/callback$/.test(value) || allowed.call(this, value)
  }
  const callback = provider.callback()
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? '/'
    if (path.startsWith('/api/')) return void resource(req, res).catch((error: Error) => res.writeHead(500).end(error.message))
    if (path.startsWith('/interaction/')) return void interaction(req, res).catch((error: Error) => res.writeHead(500).end(error.message))
    if (path.startsWith('/token/revocation')) res.once('finish', () => res.statusCode === 200 && revocations++)
    if (tokenEndpointDown && path.startsWith('/token'))
      return void res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' }).end('{"error":"temporarily_unavailable"}')
    callback(req, res)
  })

  async function resource(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const header = req.headers.authorization ?? ''
    if (req.url === '/api/echo') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ authorization: header }))
    const token = /^Bearer (.+)$/.exec(header)?.[1]
    const refuse = (why: string): void =>
      void res
        .writeHead(401, { 'content-type': 'application/json', 'www-authenticate': `Bearer error="invalid_token", error_description="${why}"` })
        .end(JSON.stringify({ error: why }))
    if (!token) return refuse('no bearer token')
    try {
      const { payload } = await jwtVerify(token, jwks, { issuer, audience: api })
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ sub: payload.sub, scope: payload.scope }))
    } catch (error) {
      refuse((error as Error).message)
    }
  }

  async function interaction(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const details = await provider.interactionDetails(req, res)
    const { uid, prompt, params, session } = details
    if (req.method === 'POST' && req.url === `/interaction/${uid}/login`) {
      let body = ''
      for await (const chunk of req) body += String(chunk)
      const login = new URLSearchParams(body).get('login') ?? ''
      if (!/^[a-z][a-z0-9-]*$/.test(login)) return void res.writeHead(200, { 'content-type': 'text/html' }).end(loginForm(uid, 'no such account'))
      return provider.interactionFinished(req, res, { login: { accountId: login } }, { mergeWithLastSubmission: false })
    }
    if (req.method === 'POST' && req.url === `/interaction/${uid}/deny`) {
      return provider.interactionFinished(
        req,
        res,
        { error: 'access_denied', error_description: 'the person did not allow it' },
        { mergeWithLastSubmission: false },
      )
    }
    if (prompt.name === 'login') return void res.writeHead(200, { 'content-type': 'text/html' }).end(loginForm(uid))
    const accountId = session!.accountId
    const grant = details.grantId ? (await provider.Grant.find(details.grantId))! : new provider.Grant({ accountId, clientId: String(params.client_id) })
    const missing = prompt.details as { missingOIDCScope?: string[]; missingResourceScopes?: Record<string, string[]> }
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '))
    const allowed = consent.get(accountId)
    for (const [resourceUrl, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
      grant.addResourceScope(resourceUrl, scopes.filter((s) => !allowed || allowed.includes(s)).join(' '))
    }
    return provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true })
  }

  const approve = (authorizationUrl: URL | string, account: string, decision: 'allow' | 'deny' = 'allow'): Promise<URL> =>
    signInAt(issuer, authorizationUrl, account, (action) => (decision === 'deny' ? action.replace(/\/login$/, '/deny') : action))

  return {
    issuer,
    api,
    approve,
    get refreshes() {
      return refreshes
    },
    get revocations() {
      return revocations
    },
    setTokenEndpointDown: (down) => void (tokenEndpointDown = down),
    async revokeRefreshTokens(account) {
      const tokens = refreshTokens.get(account) ?? []
      refreshTokens.delete(account)
      await Promise.all(tokens.map((t) => t.destroy()))
      return tokens.length
    },
    limitConsent: (account, scopes) => void consent.set(account, scopes),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

/**
 * Follow an authorization URL as a browser would, at the server `origin`: redirects by hand with its
 * cookies, its login form submitted as `account` (to `action`'s choice of button), until a redirect
 * leaves it; returns that URL (the client's callback, with `code` and `state`, or `error`).
 */
export async function signInAt(
  origin: string,
  authorizationUrl: URL | string,
  account: string,
  action: (formAction: string) => string = (a) => a,
): Promise<URL> {
  const jar = new Map<string, string>()
  let url = new URL(authorizationUrl)
  let init: RequestInit = {}
  for (let hop = 0; hop < 20; hop++) {
    if (url.origin !== origin) return url
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as object), cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') },
    })
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(';')
      const at = pair!.indexOf('=')
      jar.set(pair!.slice(0, at), pair!.slice(at + 1))
    }
    const location = response.headers.get('location')
    if (location) {
      url = new URL(location, url)
      init = {}
      continue
    }
    const page = await response.text()
    const formAction = /<form method="post" action="([^"]+)"/.exec(page)?.[1]
    if (!formAction || init.method === 'POST') throw new Error(`signing in as ${account} stopped at ${url} (${response.status}): ${page.slice(0, 300)}`)
    url = new URL(action(formAction), url)
    init = { method: 'POST', body: new URLSearchParams({ login: account }), headers: { 'content-type': 'application/x-www-form-urlencoded' } }
  }
  throw new Error(`signing in as ${account} redirected too often`)
}

function accountOf(ctx: KoaContextWithOIDC): string {
  const oidc = ctx.oidc as unknown as { session?: { accountId?: string }; entities?: Record<string, { accountId?: string } | undefined> }
  return oidc.session?.accountId ?? oidc.entities?.AuthorizationCode?.accountId ?? oidc.entities?.RefreshToken?.accountId ?? ''
}

function loginForm(uid: string, problem?: string): string {
  return `<!doctype html><title>Sign in to the service</title>${problem ? `<p>${problem}</p>` : ''}<form method="post" action="/interaction/${uid}/login"><label>Account <input name="login"></label><button>Allow</button><button formaction="/interaction/${uid}/deny">Deny</button></form>`
}

/**
 * The demo's service on 127.0.0.1:port, for `npm start`; what it returns stops it. When the port is
 * taken (another demo manager), the running service is used and nothing is started.
 */
export async function startDemoOAuth(port: number): Promise<() => Promise<void>> {
  try {
    const service = await startTestOAuthService({ port })
    return () => service.close()
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') return async () => {}
    throw error
  }
}
