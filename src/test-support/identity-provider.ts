import { createHash, randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import Provider, { type Configuration, type KoaContextWithOIDC } from 'oidc-provider'
import { exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose'
import { signInAt } from '../../examples/services/demo-oauth.js'

/** A person (or service) who can sign in at the test identity provider. */
export interface TestAccount {
  id: string
  name: string
  groups: string[]
  /** The agent its tokens act for (the `agent` claim). */
  agent?: string
}

export const TEST_ACCOUNTS: TestAccount[] = [
  { id: 'alice', name: 'Alice Admin', groups: ['sp-admins', 'staff'] },
  { id: 'oscar', name: 'Oscar Operator', groups: ['sp-operators'] },
  { id: 'bob', name: 'Bob Viewer', groups: ['sp-viewers'] },
  { id: 'carol', name: 'Carol Nobody', groups: ['staff'] },
  { id: 'helper-bot', name: 'Helper Bot', groups: ['sp-viewers'], agent: 'Helper' },
]

/** The console's pre-registered confidential client (authorization code + PKCE). */
export const CONSOLE_CLIENT = { clientId: 'skillplane-console', clientSecret: 'console-secret-5f1d9a' }
/** A pre-registered public client for tests that need a token without an MCP client. */
const TEST_CLIENT = { clientId: 'test-cli', redirectUri: 'http://127.0.0.1/callback' }

export interface TestIdentityProvider {
  issuer: string
  /**
   * Follow an authorization URL through the provider's sign-in: submit its login form as `account`,
   * consent, and return the URL it redirects back to (with `code` and `state`, or `error`).
   */
  signIn(authorizationUrl: URL | string, account: string): Promise<URL>
  /** An access token for `account` and `resource`, through the whole code flow of a pre-registered public client. */
  accessToken(account: string, resource: string): Promise<string>
  /** A JWT signed with the provider's own key, claims as given: for tokens the provider would never issue. */
  sign(claims: JWTPayload, header?: { typ?: string }): Promise<string>
  close(): Promise<void>
}

/**
 * A real OpenID provider (oidc-provider) on 127.0.0.1: dynamic client registration, resource indicators
 * (JWT access tokens whose `aud` is the resource asked for), a `groups` claim, and a login form instead
 * of the library's development interactions.
 */
export async function startTestIdentityProvider(options: { consoleRedirectUris?: string[] } = {}): Promise<TestIdentityProvider> {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const { privateKey } = await generateKeyPair('RS256', { extractable: true })
  const kid = 'test-key-1'
  const accounts = new Map(TEST_ACCOUNTS.map((a) => [a.id, a]))

  const configuration: Configuration = {
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' }] as never },
    clients: [
      {
        client_id: CONSOLE_CLIENT.clientId,
        client_secret: CONSOLE_CLIENT.clientSecret,
        redirect_uris: options.consoleRedirectUris ?? ['http://127.0.0.1/auth/callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      },
      {
        client_id: TEST_CLIENT.clientId,
        redirect_uris: [TEST_CLIENT.redirectUri],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    scopes: ['openid', 'profile', 'email', 'groups', 'offline_access'],
    claims: { openid: ['sub'], profile: ['name', 'preferred_username'], email: ['email'], groups: ['groups'] },
    findAccount: (_ctx, id) => {
      const account = accounts.get(id)
      if (!account) return undefined
      return {
        accountId: id,
        claims: () => ({ sub: id, name: account.name, preferred_username: id, email: `${id}@example.test`, groups: account.groups }),
      }
    },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        // Every http(s) resource is a resource server of this provider, its tokens JWTs for that audience.
        getResourceServerInfo: (_ctx, resource) => ({
          scope: 'openid profile email groups offline_access',
          audience: resource,
          accessTokenFormat: 'jwt',
          accessTokenTTL: 600,
          jwt: { sign: { alg: 'RS256' } },
        }),
        useGrantedResource: () => true,
      },
    },
    // The claims skillplane maps to a caller, in the access token itself.
    extraTokenClaims: (_ctx, token) => {
      const account = accounts.get(String((token as { accountId?: string }).accountId))
      if (!account) return undefined
      return { name: account.name, groups: account.groups, ...(account.agent && { agent: account.agent }) }
    },
    interactions: { url: (_ctx: KoaContextWithOIDC, interaction) => `/interaction/${interaction.uid}` },
    pkce: { required: () => true },
    cookies: { keys: ['test-identity-provider-cookie-key'] },
    ttl: { Session: 600, Interaction: 600, Grant: 600, AuthorizationCode: 60, AccessToken: 600, IdToken: 600 },
  }
  const provider = new Provider(issuer, configuration)
  // Unexpected errors of the provider surface in the test's output, not only as an error page.
  provider.on('server_error', (_ctx, error) => console.error('test identity provider:', error))
  const callback = provider.callback()
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.url?.startsWith('/interaction/')) interaction(provider, accounts, req, res).catch((error: Error) => res.writeHead(500).end(error.message))
    else callback(req, res)
  })

  const signIn = (authorizationUrl: URL | string, account: string): Promise<URL> => signInAt(issuer, authorizationUrl, account)

  return {
    issuer,
    signIn,
    async accessToken(account, resource) {
      const verifier = randomBytes(32).toString('base64url')
      const authorize = new URL(`${issuer}/auth`)
      authorize.search = new URLSearchParams({
        client_id: TEST_CLIENT.clientId,
        redirect_uri: TEST_CLIENT.redirectUri,
        response_type: 'code',
        scope: 'openid profile groups',
        resource,
        state: 'test-state',
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
      }).toString()
      const back = await signIn(authorize, account)
      const code = back.searchParams.get('code')
      if (!code) throw new Error(`no authorization code for ${account}: ${back.search}`)
      const response = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: TEST_CLIENT.redirectUri,
          client_id: TEST_CLIENT.clientId,
          code_verifier: verifier,
          resource,
        }),
      })
      const body = (await response.json()) as { access_token?: string }
      if (!body.access_token) throw new Error(`no access token for ${account}: ${JSON.stringify(body)}`)
      return body.access_token
    },
    async sign(claims, header = {}) {
      return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid, typ: header.typ ?? 'at+jwt' }).sign(privateKey)
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

/** The provider's interaction pages: a login form, and consent given at once (the test provider trusts its clients). */
async function interaction(provider: Provider, accounts: Map<string, TestAccount>, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const details = await provider.interactionDetails(req, res)
  const { uid, prompt, params, session } = details
  if (req.method === 'POST' && req.url === `/interaction/${uid}/login`) {
    let body = ''
    for await (const chunk of req) body += String(chunk)
    const login = new URLSearchParams(body).get('login') ?? ''
    if (!accounts.has(login)) return void res.writeHead(200, { 'content-type': 'text/html' }).end(loginForm(uid, 'no such account'))
    return provider.interactionFinished(req, res, { login: { accountId: login } }, { mergeWithLastSubmission: false })
  }
  if (prompt.name === 'login') return void res.writeHead(200, { 'content-type': 'text/html' }).end(loginForm(uid))
  const grant = details.grantId
    ? (await provider.Grant.find(details.grantId))!
    : new provider.Grant({ accountId: session!.accountId, clientId: String(params.client_id) })
  const missing = prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]> }
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '))
  if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims)
  for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {})) grant.addResourceScope(resource, scopes.join(' '))
  return provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true })
}

function loginForm(uid: string, problem?: string): string {
  return `<!doctype html><title>Sign in</title>${problem ? `<p>${problem}</p>` : ''}<form method="post" action="/interaction/${uid}/login"><input name="login"><button>Sign in</button></form>`
}
