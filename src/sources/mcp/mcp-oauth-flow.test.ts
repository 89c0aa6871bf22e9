import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { CONSOLE_CLIENT, startTestIdentityProvider, type TestIdentityProvider } from '../../test-support/identity-provider.js'
import { startOAuthMcpServer, type OAuthMcpServer } from '../../test-support/oauth-mcp-server.js'
import { startTestOAuthService } from '../../test-support/oauth-service.js'
import { OAuthCallbackError, OAuthRefusedError, OAuthUnavailableError } from '../../oauth/index.js'
import { McpOAuthFlow, type OAuthMcpServer as ServerConfig } from './mcp-oauth-flow.js'

const REDIRECT = 'http://127.0.0.1:7420/oauth/callback'

let idp: TestIdentityProvider
let upstream: OAuthMcpServer

beforeAll(async () => {
  idp = await startTestIdentityProvider({ consoleRedirectUris: [REDIRECT] })
  upstream = await startOAuthMcpServer({ issuer: idp.issuer })
})
afterAll(async () => {
  await upstream?.close()
  await idp?.close()
})

function config(oauth: ServerConfig['oauth'] = { account: 'person' }, url = upstream.url): ServerConfig {
  return { name: 'secured', transport: 'http', url, headers: {}, agents: [], tools: {}, connectTimeoutMs: 10_000, oauth }
}

function memoryClients() {
  const saved = new Map<string, unknown>()
  return {
    saved,
    client: async (provider: string) => saved.get(provider),
    saveClient: async (provider: string, info: unknown) => void saved.set(provider, info),
  }
}

const noSecrets = async () => new Map<string, string>()

/** The whole round trip as a person: begin, sign in at the provider, complete. */
async function connect(flow: McpOAuthFlow, account: string, scopes: string[] = []) {
  const { url, checks } = await flow.begin({ state: `state-${account}`, scopes, redirectUri: REDIRECT })
  const back = await idp.signIn(url, account)
  return flow.complete({ callbackUrl: back, state: `state-${account}`, scopes, checks, redirectUri: REDIRECT })
}

async function whoami(token: string): Promise<unknown> {
  const client = new Client({ name: 't', version: '1' })
  await client.connect(new StreamableHTTPClientTransport(new URL(upstream.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }))
  try {
    return (await client.callTool({ name: 'whoami', arguments: {} })).structuredContent
  } finally {
    await client.close()
  }
}

describe('the OAuth flow of an imported MCP server', () => {
  it('discovers the authorization server from the 401, registers itself, and gets a token for this server only', async () => {
    const clients = memoryClients()
    const flow = new McpOAuthFlow(config(), { clients, secrets: noSecrets })
    expect(flow.name).toBe('mcp:secured')
    const { url, checks } = await flow.begin({ state: 'st', scopes: [], redirectUri: REDIRECT })
    expect(url.origin).toBe(idp.issuer)
    // PKCE, the resource indicator (RFC 8707), the scopes the server's metadata names, and our state.
    expect(url.searchParams.get('code_challenge_method')).toBe('S256')
    expect(url.searchParams.get('resource')).toBe(upstream.url)
    expect(url.searchParams.get('scope')).toBe('openid offline_access')
    expect(url.searchParams.get('state')).toBe('st')
    expect(flow.defaultScopes).toEqual(['openid', 'offline_access'])
    // The registration (RFC 7591) is stored, and the checks hold the verifier, never a token.
    expect(clients.saved.get('mcp:secured')).toMatchObject({
      issuer: idp.issuer,
      client: { client_id: url.searchParams.get('client_id'), redirect_uris: [REDIRECT] },
    })
    expect(Object.keys(checks).sort()).toEqual(['clientId', 'codeVerifier'])

    const back = await idp.signIn(url, 'alice')
    const tokens = await flow.complete({ callbackUrl: back, state: 'st', scopes: [], checks, redirectUri: REDIRECT })
    expect(tokens.accessToken).toBeTruthy()
    expect(tokens.refreshToken).toBeTruthy()
    expect(Date.parse(tokens.expiresAt!)).toBeGreaterThan(Date.now())
    expect(await whoami(tokens.accessToken)).toMatchObject({ subject: 'alice' })

    // A second person reuses the stored registration.
    const again = new McpOAuthFlow(config(), { clients, secrets: noSecrets })
    const second = await again.begin({ state: 'st2', scopes: [], redirectUri: REDIRECT })
    expect(second.url.searchParams.get('client_id')).toBe(url.searchParams.get('client_id'))
  })

  it('registers once when people start connecting at the same time', async () => {
    const flow = new McpOAuthFlow(config(), { clients: memoryClients(), secrets: noSecrets })
    const started = await Promise.all(['a', 'b', 'c'].map((state) => flow.begin({ state, scopes: [], redirectUri: REDIRECT })))
    expect(new Set(started.map(({ url }) => url.searchParams.get('client_id'))).size).toBe(1)
  })

  it('refreshes, and a revoked grant is refused', async () => {
    const flow = new McpOAuthFlow(config(), { clients: memoryClients(), secrets: noSecrets })
    const tokens = await connect(flow, 'bob')
    const fresh = await flow.refresh(tokens)
    expect(fresh.accessToken).not.toBe(tokens.accessToken)
    expect(await whoami(fresh.accessToken)).toMatchObject({ subject: 'bob' })
    await flow.revoke(fresh)
    await expect(flow.refresh(fresh)).rejects.toBeInstanceOf(OAuthRefusedError)
  })

  it('uses a configured client, its secret from the secrets store', async () => {
    const clients = memoryClients()
    const secrets = async (names: string[]) => new Map(names.filter((n) => n === 'CONSOLE_SECRET').map((n) => [n, CONSOLE_CLIENT.clientSecret]))
    const flow = new McpOAuthFlow(config({ account: 'person', clientId: CONSOLE_CLIENT.clientId, clientSecret: { secret: 'CONSOLE_SECRET' } }), {
      clients,
      secrets,
    })
    const tokens = await connect(flow, 'carol')
    expect(await whoami(tokens.accessToken)).toMatchObject({ subject: 'carol' })
    expect(clients.saved.size).toBe(0)
    const unset = new McpOAuthFlow(config({ account: 'person', clientId: CONSOLE_CLIENT.clientId, clientSecret: { secret: 'CONSOLE_SECRET' } }), {
      clients,
      secrets: noSecrets,
    })
    await expect(unset.begin({ state: 's', scopes: [], redirectUri: REDIRECT })).rejects.toThrow(
      'MCP server "secured": its oauth.clientSecret names the secret CONSOLE_SECRET, not set: an admin sets it with skillplane secrets set CONSOLE_SECRET',
    )
  })

  it('turns down bad callbacks: the provider refusing, another issuer, a code used twice', async () => {
    const flow = new McpOAuthFlow(config(), { clients: memoryClients(), secrets: noSecrets })
    const { url, checks } = await flow.begin({ state: 's', scopes: [], redirectUri: REDIRECT })
    const denied = new URL(`${REDIRECT}?error=access_denied&error_description=the+person+said+no&state=s&iss=${encodeURIComponent(idp.issuer)}`)
    await expect(flow.complete({ callbackUrl: denied, state: 's', scopes: [], checks, redirectUri: REDIRECT })).rejects.toThrow(
      new OAuthRefusedError('MCP server "secured": the authorization server answered access_denied: the person said no'),
    )
    const back = await idp.signIn(url, 'alice')
    const forged = new URL(back)
    forged.searchParams.set('iss', 'http://127.0.0.1:1/evil')
    await expect(flow.complete({ callbackUrl: forged, state: 's', scopes: [], checks, redirectUri: REDIRECT })).rejects.toBeInstanceOf(OAuthCallbackError)
    // The provider says it names itself in every response (RFC 9207): one without the name is not taken.
    forged.searchParams.delete('iss')
    await expect(flow.complete({ callbackUrl: forged, state: 's', scopes: [], checks, redirectUri: REDIRECT })).rejects.toThrow(
      'MCP server "secured": the callback lacks the issuer',
    )
    await flow.complete({ callbackUrl: back, state: 's', scopes: [], checks, redirectUri: REDIRECT })
    const replay = flow.complete({ callbackUrl: back, state: 's', scopes: [], checks, redirectUri: REDIRECT })
    await expect(replay).rejects.toBeInstanceOf(OAuthRefusedError)
    await expect(replay).rejects.toThrow(/invalid_grant/)
  })

  it('asks for a configured client when the authorization server offers no dynamic registration', async () => {
    const service = await startTestOAuthService()
    const behind = await startOAuthMcpServer({ issuer: service.issuer })
    try {
      const flow = new McpOAuthFlow(config(undefined, behind.url), { clients: memoryClients(), secrets: noSecrets })
      await expect(flow.begin({ state: 's', scopes: [], redirectUri: REDIRECT })).rejects.toThrow(
        new OAuthUnavailableError(
          `MCP server "secured": its authorization server ${service.issuer} offers no dynamic client registration: register skillplane there (redirect URL ${REDIRECT}) and set oauth.clientId (and oauth.clientSecret) in the server's config`,
        ),
      )
    } finally {
      await behind.close()
      await service.close()
    }
  })

  it('says what is wrong when the server is no OAuth-protected MCP server, or is down', async () => {
    const down = new McpOAuthFlow(config(undefined, 'http://127.0.0.1:1/mcp'), { clients: memoryClients(), secrets: noSecrets })
    const attempt = down.begin({ state: 's', scopes: [], redirectUri: REDIRECT })
    await expect(attempt).rejects.toBeInstanceOf(OAuthUnavailableError)
    await expect(attempt).rejects.toThrow(/^MCP server "secured": its protected-resource metadata \(RFC 9728\) could not be read: fetch failed/)
    // A resource server whose metadata names another resource: no token for it is asked for.
    const other = new McpOAuthFlow(config(undefined, idp.issuer + '/mcp'), { clients: memoryClients(), secrets: noSecrets })
    await expect(other.begin({ state: 's', scopes: [], redirectUri: REDIRECT })).rejects.toBeInstanceOf(OAuthUnavailableError)
  })
})
