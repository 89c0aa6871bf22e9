import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { databases, waitFor } from '../../test-support/databases.js'
import { agentCaller, openTestPlane, operator } from '../../test-support/fixtures.js'
import { startTestIdentityProvider, type TestIdentityProvider } from '../../test-support/identity-provider.js'
import { connectInBrowser } from '../../test-support/oauth-service.js'
import { startOAuthMcpServer, type OAuthMcpServer } from '../../test-support/oauth-mcp-server.js'
import { resolveConfig } from '../../config/index.js'
import type { Skillplane } from '../../agents/index.js'
import type { SkillplaneConfig } from '../../config/define-config.js'
import { startHttpServer, type HttpServer } from '../../surfaces/http/index.js'

const [sqlite] = databases

let idp: TestIdentityProvider
let upstream: OAuthMcpServer

beforeAll(async () => {
  idp = await startTestIdentityProvider()
  upstream = await startOAuthMcpServer({ issuer: idp.issuer })
})
afterAll(async () => {
  await upstream?.close()
  await idp?.close()
})

describe('MCP servers behind OAuth', () => {
  const planes: Skillplane[] = []
  const cleanup: Array<() => Promise<unknown>> = []
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step().catch(() => {})
    await Promise.all(planes.splice(0).map((p) => p.close()))
  })
  const open = async (config: SkillplaneConfig) => {
    const plane = await openTestPlane(sqlite!, config)
    planes.push(plane)
    return plane
  }

  it('checks a server’s oauth config, naming the field', async () => {
    const refused = async (server: object) =>
      ((await resolveConfig({ mcpServers: [server] } as never, { dataDir: '/tmp' }, 'c.ts').catch((e: Error) => e)) as Error).message
    expect(await refused({ name: 's', command: 'x', oauth: {} })).toBe('config c.ts: mcpServers[0].oauth: does not apply to a command server')
    expect(await refused({ name: 's', url: 'http://h/mcp', oauth: { clientSecret: { secret: 'S' } } })).toBe(
      'config c.ts: mcpServers[0].oauth.clientSecret: needs clientId (a client secret belongs to a client registered by hand)',
    )
    expect(await refused({ name: 's', url: 'http://h/mcp', oauth: { account: 'team' } })).toMatch(/^config c\.ts: mcpServers\[0\]\.oauth\.account: /)
    expect(await refused({ name: 's', url: 'http://h/mcp', oauth: { scopes: ['a b'] } })).toBe(
      'config c.ts: mcpServers[0].oauth.scopes[0]: a scope token (no spaces or quotes)',
    )
    expect(await refused({ name: 's', url: 'http://h/mcp', headers: { authorization: 'Bearer x' }, oauth: {} })).toBe(
      'config c.ts: mcpServers[0].headers: Authorization is sent by the oauth connection: remove it from headers',
    )
    const resolved = await resolveConfig({ mcpServers: [{ name: 's', url: 'http://h/mcp', oauth: {} }] }, { dataDir: '/tmp' }, 'c.ts')
    expect(resolved.mcpServers[0]).toMatchObject({ transport: 'http', oauth: { account: 'person' } })
  })

  it('says a server without oauth config that answers 401 with protected-resource metadata needs it, instead of guessing whose account', async () => {
    const plane = await open({ mcpServers: [{ name: 'secured', url: upstream.url, connectTimeoutMs: 5_000 }] })
    const [status] = plane.sources.mcpServers()
    expect(status).toMatchObject({
      state: 'down',
      reason:
        "can't connect: it requires OAuth (its 401 names protected-resource metadata): give it oauth: { account: 'person' } (each person connects their own account) or oauth: { account: 'service' } in the config",
    })
    expect(plane.skills.list().filter((s) => s.source === 'mcp')).toEqual([])
  })

  /** A plane with its HTTP server (links and the callback need one), and keys for people. */
  async function serve(config: SkillplaneConfig) {
    const plane = await open(config)
    const server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    cleanup.push(() => server.close())
    const key = async (name: string, role: 'admin' | 'operator' = 'operator') => (await plane.people.keys.create({ name, role }, plane.now())).key
    return { plane, server, key }
  }

  const api = async (server: HttpServer, key: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    })
    return { status: response.status, body: (await response.json()) as any }
  }
  const invoke = (server: HttpServer, key: string, skill: string) => api(server, key, `/api/skills/${skill}/invoke`, { input: {} })

  /** Open a connect link as a browser would, sign in at the provider as `account`, and come back through skillplane's callback. */
  async function connectThrough(link: string, account: string): Promise<string | null> {
    const back = await connectInBrowser(link, (url) => idp.signIn(url, account))
    expect(back.status).toBe(302)
    return back.location
  }

  it('connects a per-person server: a call answers needs_auth with a link, the person connects, the call runs with their token; others still need to', async () => {
    const secured = await startOAuthMcpServer({ issuer: idp.issuer })
    cleanup.push(() => secured.close())
    const { plane, server, key } = await serve({ mcpServers: [{ name: 'secured', url: secured.url, oauth: {}, agents: ['Helper'] }] })
    const [carol, alice, bob, root] = [await key('carol'), await key('alice'), await key('bob'), await key('root', 'admin')]
    // Nobody has connected: no session, so no tool list yet, and the server says how it gets one.
    expect(plane.sources.mcpServers()[0]).toMatchObject({ state: 'needs_auth', skills: [], reason: expect.stringContaining('nobody has connected to it yet') })
    const providers = await api(server, carol, '/api/connections')
    expect(providers.body.providers).toContainEqual({ name: 'mcp:secured', title: 'MCP server "secured"', defaultScopes: [] })

    // The first person connects from the connections API: their session lists the tools, for everyone.
    const link = await api(server, carol, `/api/connections/${encodeURIComponent('mcp:secured')}/authorize`, {})
    expect(link.status).toBe(200)
    expect(await connectThrough(link.body.authorizationUrl, 'carol')).toBe('/connections?connected=mcp%3Asecured')
    await waitFor(() => plane.skills.get('secured_whoami') !== undefined)
    expect(plane.skills.get('secured_whoami')!.oauth).toEqual({ provider: 'mcp:secured', scopes: [], account: 'person' })

    // Alice has no connection: refused before anything reaches the server, with her link.
    const refused = await invoke(server, alice, 'secured_whoami')
    expect(refused.status).toBe(424)
    expect(refused.body.error).toMatchObject({
      code: 'needs_auth',
      details: { oauth: { provider: 'mcp:secured' }, authorizationUrl: expect.stringMatching(new RegExp(`^${server.url}/oauth/start\\?link=`)) },
    })
    expect(secured.sessions()).toEqual(['carol'])
    await connectThrough(refused.body.error.details.authorizationUrl, 'alice')
    const ran = await invoke(server, alice, 'secured_whoami')
    expect(ran.body).toMatchObject({ ok: true, data: { structuredContent: { subject: 'alice' } } })
    expect((await invoke(server, carol, 'secured_whoami')).body).toMatchObject({ ok: true, data: { structuredContent: { subject: 'carol' } } })
    // One upstream session per person.
    expect(secured.sessions().sort()).toEqual(['alice', 'carol'])
    // An agent acting for Alice uses her session; acting for nobody, it has no account to use.
    const helper = agentCaller('helper')
    const forAlice = await plane.invoke('secured_whoami', {}, { caller: helper, onBehalfOf: { ...operator, id: 'k-alice', name: 'alice' } })
    expect(forAlice).toMatchObject({ ok: true, data: { structuredContent: { subject: 'alice' } } })
    expect(await plane.invoke('secured_whoami', {}, { caller: helper })).toMatchObject({ ok: false, error: { code: 'needs_auth' } })
    expect(secured.sessions().sort()).toEqual(['alice', 'carol'])
    // Bob still has to connect.
    expect((await invoke(server, bob, 'secured_whoami')).body.error).toMatchObject({ code: 'needs_auth', details: { oauth: { provider: 'mcp:secured' } } })

    // A server that echoes the token back: the result and the audit never carry it.
    const token = (await plane.oauth.token('mcp:secured', 'alice', [])).accessToken
    const echoed = await invoke(server, alice, 'secured_echo_token')
    expect(echoed.body).toMatchObject({ ok: true, data: { content: [{ type: 'text', text: 'your token is [REDACTED]' }] } })
    const audit = await api(server, root, '/api/audit?skill=secured_echo_token')
    expect(JSON.stringify(audit.body)).toContain('your token is [REDACTED]')
    const events = await api(server, root, '/api/audit/events')
    expect(JSON.stringify(events.body)).toContain('connection.connected')
    for (const text of [JSON.stringify(audit.body), JSON.stringify(events.body), JSON.stringify(echoed.body), JSON.stringify(plane.sources.report())]) {
      expect(text).not.toContain(token)
    }

    // The token is revoked upstream: the call says so (it did not run), and Alice's connection goes back to needs_auth.
    secured.refuse('alice')
    const revoked = await invoke(server, alice, 'secured_whoami')
    expect(revoked.status).toBe(424)
    expect(revoked.body.error.code).toBe('needs_auth')
    expect(revoked.body.error.message).toMatch(
      /MCP server "secured" refused the token, so the call did not run: HTTP 401: .*the token was revoked.*; connect again: http:\/\/127\.0\.0\.1:\d+\/oauth\/start\?link=/,
    )
    expect(revoked.body.error.message).not.toContain(token)
    expect(plane.oauth.state('mcp:secured', 'alice', [])).toMatchObject({ state: 'needs_auth' })
    expect((await plane.oauth.list({ subject: 'alice' })).find((c) => c.provider === 'mcp:secured')).toMatchObject({
      state: 'needs_auth',
      reason: expect.stringContaining('it refused the token'),
    })
    // The next call is refused before the server; Carol's session is untouched.
    expect((await invoke(server, alice, 'secured_whoami')).body.error).toMatchObject({ code: 'needs_auth', details: { authorizationUrl: expect.any(String) } })
    expect((await invoke(server, carol, 'secured_whoami')).body).toMatchObject({ ok: true, data: { structuredContent: { subject: 'carol' } } })
    // Alice connects again: a new token, on a new session.
    await connectThrough((await api(server, alice, `/api/connections/${encodeURIComponent('mcp:secured')}/authorize`, {})).body.authorizationUrl, 'alice')
    expect((await invoke(server, alice, 'secured_whoami')).body).toMatchObject({ ok: true, data: { structuredContent: { subject: 'alice' } } })
    // (The session of the refused token can't be ended with it: the server refuses that token, so it ends the session itself.)
    expect(secured.sessions().sort()).toEqual(['alice', 'alice', 'carol'])
    // Carol connects again (another token, maybe another account): her session is ended, and her next call opens one.
    await connectThrough((await api(server, carol, `/api/connections/${encodeURIComponent('mcp:secured')}/authorize`, {})).body.authorizationUrl, 'carol')
    await waitFor(() => !secured.sessions().includes('carol'))
    expect((await invoke(server, carol, 'secured_whoami')).body).toMatchObject({ ok: true, data: { structuredContent: { subject: 'carol' } } })
    expect(secured.sessions().filter((s) => s === 'carol')).toHaveLength(1)
  })

  it('connects a service-account server once, by an admin, and every caller runs with that account', async () => {
    const secured = await startOAuthMcpServer({ issuer: idp.issuer })
    cleanup.push(() => secured.close())
    const { plane, server, key } = await serve({ mcpServers: [{ name: 'shared', url: secured.url, oauth: { account: 'service' } }] })
    const [root, alice, bob] = [await key('root', 'admin'), await key('alice'), await key('bob')]
    expect(plane.sources.mcpServers()[0]).toMatchObject({
      state: 'needs_auth',
      reason: expect.stringContaining('the service account has no usable MCP server "shared" connection'),
    })
    // Only an admin connects the service account.
    expect((await api(server, alice, `/api/connections/${encodeURIComponent('mcp:shared')}/authorize`, { account: 'service' })).status).toBe(403)
    const link = await api(server, root, `/api/connections/${encodeURIComponent('mcp:shared')}/authorize`, { account: 'service' })
    await connectThrough(link.body.authorizationUrl, 'oscar')
    await waitFor(() => plane.sources.mcpServers()[0]!.state === 'connected')
    expect(plane.skills.get('shared_whoami')!.oauth).toEqual({ provider: 'mcp:shared', scopes: [], account: 'service' })
    for (const caller of [alice, bob]) {
      expect((await invoke(server, caller, 'shared_whoami')).body).toMatchObject({ ok: true, data: { structuredContent: { subject: 'oscar' } } })
    }
    // One session for everyone.
    expect(secured.sessions()).toEqual(['oscar'])
    const token = (await plane.oauth.token('mcp:shared', '', [])).accessToken
    const echoed = await invoke(server, bob, 'shared_echo_token')
    expect(JSON.stringify(echoed.body)).not.toContain(token)
    expect(echoed.body.data.content[0].text).toBe('your token is [REDACTED]')

    // The admin connects the service account again, as another account: a new session, with its token.
    await connectThrough(
      (await api(server, root, `/api/connections/${encodeURIComponent('mcp:shared')}/authorize`, { account: 'service' })).body.authorizationUrl,
      'carol',
    )
    await waitFor(() => secured.sessions().includes('carol') && plane.sources.mcpServers()[0]!.state === 'connected')
    expect((await invoke(server, alice, 'shared_whoami')).body).toMatchObject({ ok: true, data: { structuredContent: { subject: 'carol' } } })

    // Revoked upstream: the service connection goes back to needs_auth, and so does the server.
    secured.refuse('carol')
    expect((await invoke(server, alice, 'shared_whoami')).body.error).toMatchObject({ code: 'needs_auth' })
    expect(plane.oauth.state('mcp:shared', '', [])).toMatchObject({ state: 'needs_auth' })
    expect(plane.sources.mcpServers()[0]).toMatchObject({ state: 'needs_auth', reason: expect.stringContaining('it refused the token') })
  })
})
