import { createServer } from 'node:net'
import { once } from 'node:events'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { decodeJwt, exportSPKI, importJWK, SignJWT, type JWTPayload } from 'jose'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js'
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js'
import { databases } from '../test-support/databases.js'
import { openTestPlane } from '../test-support/fixtures.js'
import { startTestIdentityProvider, type TestIdentityProvider } from '../test-support/identity-provider.js'
import type { SkillplaneConfig } from '../config/define-config.js'
import { startHttpServer, type HttpServer } from '../surfaces/http/index.js'

const [sqlite] = databases
const ROLES = { admin: ['sp-admins'], operator: ['sp-operators'], viewer: ['sp-viewers'] }

/** An MCP client's OAuth state, kept in memory: what a desktop client keeps on disk. */
class MemoryOAuthClient implements OAuthClientProvider {
  information: OAuthClientInformationMixed | undefined
  saved: OAuthTokens | undefined
  verifier = ''
  authorizationUrl: URL | undefined
  readonly redirectUrl = 'http://127.0.0.1/mcp-callback'
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'test MCP client',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }
  }
  clientInformation() {
    return this.information
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.information = information
  }
  tokens() {
    return this.saved
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier
  }
  codeVerifier() {
    return this.verifier
  }
}

describe('OAuth access tokens on /mcp and /api', () => {
  let idp: TestIdentityProvider
  const cleanup: Array<() => Promise<unknown>> = []
  beforeAll(async () => {
    idp = await startTestIdentityProvider()
  })
  afterAll(() => idp.close())
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step().catch(() => {})
  })

  async function start(oidc: Partial<NonNullable<NonNullable<SkillplaneConfig['auth']>['oidc']>> = {}, http: SkillplaneConfig['http'] = {}) {
    const plane = await openTestPlane(sqlite!, { auth: { oidc: { issuer: idp.issuer, clientId: 'skillplane-console', roles: ROLES, ...oidc } }, http })
    cleanup.push(() => plane.close())
    const server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    cleanup.push(() => server.close())
    return { plane, server }
  }

  const get = async (server: HttpServer, path: string, token?: string) => {
    const response = await fetch(server.url + path, { headers: token ? { authorization: `Bearer ${token}` } : {} })
    return { status: response.status, authenticate: response.headers.get('www-authenticate'), body: (await response.json()) as any }
  }
  const postMcp = async (server: HttpServer, token?: string) => {
    const response = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(token && { authorization: `Bearer ${token}` }) },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    })
    return { status: response.status, authenticate: response.headers.get('www-authenticate') }
  }

  it('serves its protected resource metadata and points every 401 of /api and /mcp at it', async () => {
    const { server } = await start({ scopes: ['openid', 'groups'] })
    expect(await get(server, '/.well-known/oauth-protected-resource')).toMatchObject({
      status: 200,
      body: { resource: server.url, authorization_servers: [idp.issuer], bearer_methods_supported: ['header'], scopes_supported: ['openid', 'groups'] },
    })
    expect((await get(server, '/.well-known/oauth-protected-resource/mcp')).body).toMatchObject({
      resource: `${server.url}/mcp`,
      authorization_servers: [idp.issuer],
    })

    const apiChallenge = `Bearer resource_metadata="${server.url}/.well-known/oauth-protected-resource"`
    const mcpChallenge = `Bearer resource_metadata="${server.url}/.well-known/oauth-protected-resource/mcp"`
    expect(await get(server, '/api/skills')).toMatchObject({
      status: 401,
      authenticate: apiChallenge,
      body: { error: { code: 'unauthorized', message: 'missing API key or access token: send Authorization: Bearer <credential>' } },
    })
    expect(await postMcp(server)).toEqual({ status: 401, authenticate: mcpChallenge })
    expect(await get(server, '/api/skills', 'sp_not-a-real-key')).toMatchObject({
      status: 401,
      authenticate: `${apiChallenge}, error="invalid_token", error_description="unknown or revoked API key, or its user is disabled"`,
    })
    expect(await postMcp(server, 'opaque-token')).toEqual({
      status: 401,
      authenticate: `${mcpChallenge}, error="invalid_token", error_description="neither an API key nor a JWT access token"`,
    })
    const basic = await fetch(`${server.url}/api/skills`, { headers: { authorization: 'Basic YWxpY2U6cHc=' } })
    expect(basic.headers.get('www-authenticate')).toBe(`${apiChallenge}, error="invalid_request"`)

    // The resource is the public URL when one is configured.
    const { server: behindProxy } = await start({}, { publicUrl: 'https://skillplane.example.com' })
    expect((await get(behindProxy, '/.well-known/oauth-protected-resource/mcp')).body.resource).toBe('https://skillplane.example.com/mcp')
    expect((await get(behindProxy, '/api/skills')).authenticate).toBe(
      'Bearer resource_metadata="https://skillplane.example.com/.well-known/oauth-protected-resource"',
    )
  })

  it("lets the MCP SDK client discover the provider from /mcp's 401, sign in through the code flow and call tools", async () => {
    const { plane, server } = await start()
    const oauth = new MemoryOAuthClient()
    const endpoint = new URL(`${server.url}/mcp`)
    const first = new Client({ name: 'oauth-client', version: '1.0.0' })
    await expect(first.connect(new StreamableHTTPClientTransport(endpoint, { authProvider: oauth }))).rejects.toThrow(UnauthorizedError)
    // It registered itself and sends the user to the provider, asking for a token for /mcp.
    expect(oauth.information?.client_id).toEqual(expect.any(String))
    const authorization = oauth.authorizationUrl!
    expect(authorization.origin).toBe(idp.issuer)
    expect(Object.fromEntries(authorization.searchParams)).toMatchObject({ resource: endpoint.href, code_challenge_method: 'S256', response_type: 'code' })

    const back = await idp.signIn(authorization, 'alice')
    expect(`${back.origin}${back.pathname}`).toBe(oauth.redirectUrl)
    const transport = new StreamableHTTPClientTransport(endpoint, { authProvider: oauth })
    await transport.finishAuth(back.searchParams.get('code')!)
    expect(decodeJwt(oauth.saved!.access_token)).toMatchObject({ iss: idp.issuer, aud: endpoint.href, sub: 'alice', groups: ['sp-admins', 'staff'] })

    const client = new Client({ name: 'oauth-client', version: '1.0.0' })
    await client.connect(transport)
    cleanup.push(() => client.close())
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'wipe_things']))
    const result = await client.callTool({ name: 'echo', arguments: { message: 'hello over OAuth' } })
    expect(result.structuredContent).toEqual({ message: 'hello over OAuth', count: 1 })
    // The token's subject became a user at first sight, and the audit names that user.
    const alice = (await plane.people.users.get('alice'))!
    expect(alice).toMatchObject({ displayName: 'Alice Admin', role: 'admin', external: { issuer: idp.issuer, subject: 'alice' } })
    const { items } = await plane.audit.query({ skill: 'echo', limit: 10 })
    expect(items).toMatchObject([
      { caller: { id: alice.id, name: 'alice', kind: 'user', role: 'admin', auth: 'token', user: { id: alice.id, displayName: 'Alice Admin' } }, status: 'ok' },
    ])
  })

  it('gives a token the role its groups grant on /api, an agent when it names one, and nothing without a role', async () => {
    const { plane, server } = await start({ agentClaim: 'agent' })
    const token = (account: string) => idp.accessToken(account, server.url)
    const userId = async (name: string) => (await plane.people.users.get(name))!.id
    const aliceToken = await token('alice')
    expect((await get(server, '/api/me', aliceToken)).body.caller).toEqual({
      kind: 'user',
      id: await userId('alice'),
      name: 'alice',
      displayName: 'Alice Admin',
      role: 'admin',
      auth: 'token',
    })
    expect((await get(server, '/api/me', await token('oscar'))).body.caller).toMatchObject({ id: await userId('oscar'), role: 'operator' })
    const bob = await token('bob')
    expect((await get(server, '/api/me', bob)).body.caller).toMatchObject({ id: await userId('bob'), role: 'viewer' })
    const invoke = (key: string) =>
      fetch(`${server.url}/api/skills/write_thing/invoke`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ input: { value: 'x' } }),
      })
    expect((await invoke(bob)).status).toBe(403)
    expect((await invoke(await token('oscar'))).status).toBe(200)
    expect((await get(server, '/api/me', await token('helper-bot'))).body.caller).toEqual({
      kind: 'agent',
      id: await userId('helper-bot'),
      name: 'helper-bot',
      displayName: 'Helper Bot',
      agentId: 'helper',
      userId: await userId('helper-bot'),
      auth: 'token',
    })

    // Disabling the user refuses their next token at once; a skillplane group can grant a role the provider doesn't.
    await plane.people.users.disable('alice', { id: 'root', name: 'root' })
    expect(await get(server, '/api/me', aliceToken)).toMatchObject({ status: 401, body: { error: { message: 'user "alice" is disabled' } } })

    expect(await get(server, '/api/me', await token('carol'))).toMatchObject({
      status: 403,
      body: { error: { code: 'denied', message: 'Carol Nobody has no skillplane role: its groups claim names no group of auth.oidc.roles' } },
    })
    // /openapi.json takes no key at all: a token refused for its subject is 401 there, with the same reason.
    expect(await get(server, '/openapi.json', await token('carol'))).toMatchObject({
      status: 401,
      body: { error: { code: 'unauthorized', message: 'Carol Nobody has no skillplane role: its groups claim names no group of auth.oidc.roles' } },
    })
    await plane.people.groups.add({ name: 'reviewers', role: 'viewer' }, { id: 'root', name: 'root' })
    await plane.people.groups.addMember('reviewers', 'carol', { id: 'root', name: 'root' })
    expect((await get(server, '/api/me', await token('carol'))).body.caller).toMatchObject({ name: 'carol', role: 'viewer' })
    // Acting for an agent takes a user skillplane gives a role to.
    const roleless = await idp.sign({ ...claims(server), sub: 'eve', groups: [], agent: 'Helper' })
    expect(await get(server, '/api/me', roleless)).toMatchObject({
      status: 403,
      body: { error: { message: expect.stringContaining('eve has no skillplane role') } },
    })
    const stranger = await idp.sign({ ...claims(server), sub: 'mallory', agent: 'Nobody' })
    expect(await get(server, '/api/me', stranger)).toMatchObject({
      status: 403,
      body: { error: { code: 'denied', message: "the token's agent claim names no agent skillplane knows" } },
    })
  })

  function claims(server: HttpServer, extra: JWTPayload = {}): JWTPayload {
    const now = Math.floor(Date.now() / 1000)
    return { iss: idp.issuer, aud: server.url, sub: 'alice', groups: ['sp-admins'], iat: now, exp: now + 300, ...extra }
  }

  it('refuses expired, wrong-audience, wrong-issuer, unsigned and HMAC-forged tokens with 401 and the challenge', async () => {
    const { server } = await start()
    const now = Math.floor(Date.now() / 1000)
    const { keys } = (await (await fetch(`${idp.issuer}/jwks`)).json()) as { keys: Array<{ n: string; e: string; kid: string }> }
    const { n, e, kid } = keys[0]!
    const publicPem = await exportSPKI((await importJWK({ kty: 'RSA', n, e }, 'RS256')) as Parameters<typeof exportSPKI>[0])
    const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url')
    const refused: Record<string, [string, string]> = {
      expired: [await idp.sign(claims(server, { iat: now - 7200, exp: now - 3600 })), 'the access token has expired'],
      'for another resource': [await idp.accessToken('alice', 'https://elsewhere.example.com'), 'the access token is for another audience, not this server'],
      'from another issuer': [
        await idp.sign(claims(server, { iss: 'https://impostor.example.com' })),
        'the access token is from another issuer than auth.oidc.issuer',
      ],
      unsigned: [`${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims(server))}.`, 'the access token is not signed with an allowed algorithm'],
      'HS256 with the public key as secret': [
        await new SignJWT(claims(server)).setProtectedHeader({ alg: 'HS256', kid }).sign(new TextEncoder().encode(publicPem)),
        'the access token is not signed with an allowed algorithm',
      ],
      'signed by another key': [
        (await idp.sign(claims(server))).replace(/\.[^.]+$/, `.${Buffer.from('not the signature').toString('base64url')}`),
        "the access token's signature does not verify",
      ],
    }
    for (const [what, [token, message]] of Object.entries(refused)) {
      const answer = await get(server, '/api/skills', token)
      expect({ what, ...answer }).toEqual({
        what,
        status: 401,
        authenticate: `Bearer resource_metadata="${server.url}/.well-known/oauth-protected-resource", error="invalid_token", error_description="${message}"`,
        body: { ok: false, error: { code: 'unauthorized', message } },
      })
      expect({ what, ...(await postMcp(server, token)) }).toMatchObject({
        what,
        status: 401,
        authenticate: expect.stringContaining('/mcp", error="invalid_token"'),
      })
    }
    // The same claims, properly signed, pass.
    expect((await get(server, '/api/skills', await idp.sign(claims(server)))).status).toBe(200)
  })

  it('keeps API keys working beside tokens, and answers 503 while the provider cannot be reached', async () => {
    const { plane, server } = await start()
    const key = (await plane.people.keys.create({ name: 'root', role: 'admin' }, plane.now())).key
    expect((await get(server, '/api/me', key)).body.caller).toMatchObject({ kind: 'user', name: 'root', role: 'admin' })
    expect((await postMcp(server, key)).status).toBe(200)

    const closed = createServer().listen(0, '127.0.0.1')
    await once(closed, 'listening')
    const port = (closed.address() as { port: number }).port
    closed.close()
    const { plane: alone, server: orphan } = await start({ issuer: `http://127.0.0.1:${port}` })
    const answer = await get(orphan, '/api/skills', await idp.sign(claims(orphan, { iss: `http://127.0.0.1:${port}` })))
    expect(answer).toMatchObject({
      status: 503,
      body: { error: { code: 'unavailable', message: expect.stringContaining("the identity provider's metadata could not be read") } },
    })
    // A 503 wherever a token is read or the provider is asked: /openapi.json, and the console's sign-in.
    const unreachable = { code: 'unavailable', message: expect.stringContaining("the identity provider's metadata could not be read") }
    const token = await idp.sign(claims(orphan, { iss: `http://127.0.0.1:${port}` }))
    expect(await get(orphan, '/openapi.json', token)).toMatchObject({ status: 503, body: { ok: false, error: unreachable } })
    expect(await get(orphan, '/auth/login')).toMatchObject({
      status: 503,
      body: {
        ok: false,
        error: { code: 'unavailable', message: expect.stringContaining(`the identity provider at http://127.0.0.1:${port} can't be reached`) },
      },
    })
    const aloneKey = (await alone.people.keys.create({ name: 'root', role: 'admin' }, alone.now())).key
    expect((await get(orphan, '/api/skills', aloneKey)).status).toBe(200)
  })
})
