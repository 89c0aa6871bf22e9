import { copyFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { databases, tempDir, waitFor } from '../test-support/databases.js'
import { admin, agentCaller, openTestPlane, operator, silentLogger } from '../test-support/fixtures.js'
import { createSkillplane } from '../index.js'
import { SERVICE_CLIENT, connectInBrowser, startTestOAuthService, type TestOAuthService, whoamiSkill, serviceProvider } from '../test-support/oauth-service.js'
import { defineSkill } from '../skill/index.js'
import type { Skillplane } from '../agents/index.js'
import type { SkillplaneConfig } from '../config/index.js'
import { startHttpServer, type HttpServer } from '../surfaces/http/index.js'
import { openDatabase } from '../store/index.js'

/** Who the service's API says the token belongs to, read with the connection's token. */
const whoami = whoamiSkill(() => serviceApi, { key: 'svc_whoami', provider: 'svc', scopes: ['issues:read'], agents: ['Helper'] })
/** A service that repeats the Authorization header back: the token must not reach the caller or the audit. */
const echo = defineSkill({
  key: 'svc_echo',
  description: 'Send the token to a service that echoes it',
  class: 'safe',
  oauth: { provider: 'svc' },
  input: z.object({ note: z.string().default('') }),
  async run(_input, ctx) {
    const response = await fetch(`${serviceApi}/echo`, { headers: { authorization: `Bearer ${ctx.secrets.get('svc')}` } })
    return { ...((await response.json()) as object), raw: ctx.secrets.get('svc') }
  },
})
const writer = defineSkill({
  key: 'svc_write',
  description: 'Needs more than reading',
  class: 'safe',
  oauth: { provider: 'svc', scopes: ['issues:read', 'issues:write'] },
  run: (_input, ctx) => ({ length: ctx.secrets.get('svc').length }),
})
const shared = whoamiSkill(() => serviceApi, { key: 'svc_shared', provider: 'svc', scopes: ['issues:read'], account: 'service' })
let serviceApi = ''

describe.each(databases)('OAuth connections on $name', (database) => {
  let service: TestOAuthService
  const cleanup: Array<() => Promise<unknown>> = []
  beforeAll(async () => {
    service = await startTestOAuthService()
    serviceApi = service.api
  })
  afterAll(() => service.close())
  afterEach(async () => {
    service.setTokenEndpointDown(false)
    for (const step of cleanup.splice(0).reverse()) await step().catch(() => {})
  })

  const config = (extra: SkillplaneConfig = {}): SkillplaneConfig => ({
    skills: [whoami, echo, writer, shared],
    oauth: {
      providers: {
        svc: serviceProvider(service, 'SVC_CLIENT_SECRET', 'Test Service'),
      },
    },
    ...extra,
  })

  async function start(location?: { dataDir: string; databaseUrl?: string }, extra?: SkillplaneConfig) {
    const plane = await openTestPlane(database, config(extra), location)
    cleanup.push(() => plane.close())
    const server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    cleanup.push(() => server.close())
    await plane.values.secrets.set('SVC_CLIENT_SECRET', SERVICE_CLIENT.clientSecret, {})
    const key = async (name: string, role: 'admin' | 'operator' | 'viewer' = 'operator') => (await plane.people.keys.create({ name, role }, plane.now())).key
    return { plane, server, key }
  }

  const invoke = async (server: HttpServer, key: string, skill: string, input: unknown = {}) => {
    const response = await fetch(`${server.url}/api/skills/${skill}/invoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ input }),
    })
    return { status: response.status, body: (await response.json()) as any }
  }

  /** Open a connect link as a browser would, approve at the service as `account`, and come back: the callback's answer. */
  const connect = (link: string, account: string, decision: 'allow' | 'deny' = 'allow') =>
    connectInBrowser(link, (url) => service.approve(url, account, decision))

  async function rawDb(plane: Skillplane) {
    const location = plane.status.dialect === 'postgres' ? { databaseUrl: plane.status.location } : { dataDir: plane.status.dataDir }
    const opened = await openDatabase({ ...location, dataDir: plane.status.dataDir } as never)
    cleanup.push(async () => opened.close())
    return opened.db
  }

  it('answers needs_auth with a link; the person connects; the call runs with their token, never recorded', async () => {
    const { plane, server, key } = await start()
    const alice = await key('alice')
    const bob = await key('bob')

    const refused = await invoke(server, alice, 'svc_whoami')
    expect(refused.status).toBe(424)
    expect(refused.body.error.code).toBe('needs_auth')
    const link: string = refused.body.error.details.authorizationUrl
    expect(link).toMatch(new RegExp(`^${server.url}/oauth/start\\?link=`))
    expect(refused.body.error.details.oauth).toEqual({ provider: 'svc', missingScopes: ['issues:read'], account: 'person' })
    expect(refused.body.error.message).toContain(link)
    // The listing says so too, for this caller.
    const listed = (await (await fetch(`${server.url}/api/skills/svc_whoami`, { headers: { authorization: `Bearer ${alice}` } })).json()) as any
    expect(listed.connection).toMatchObject({ state: 'needs_auth', oauth: { provider: 'svc', missingScopes: ['issues:read'] } })

    const done = await connect(link, 'alice')
    expect(done.status).toBe(302)
    expect(done.location).toBe('/connections?connected=svc')

    const ok = await invoke(server, alice, 'svc_whoami')
    expect(ok.status).toBe(200)
    expect(ok.body.data).toEqual({ sub: 'alice', scope: expect.stringContaining('issues:read') })
    expect(
      ((await (await fetch(`${server.url}/api/skills/svc_whoami`, { headers: { authorization: `Bearer ${alice}` } })).json()) as any).connection.state,
    ).toBe('ready')
    // Bob has not connected: his call still needs him.
    expect((await invoke(server, bob, 'svc_whoami')).status).toBe(424)

    // The token the service echoed is scrubbed from the result and from the audit.
    const echoed = await invoke(server, alice, 'svc_echo')
    expect(echoed.status).toBe(200)
    expect(echoed.body.data.authorization).toBe('Bearer [REDACTED]')
    expect(echoed.body.data.raw).toBe('[REDACTED]')
    const db = await rawDb(plane)
    const rows = await db.selectFrom('audit_calls').selectAll().execute()
    const events = await db.selectFrom('audit_events').selectAll().execute()
    const stored = await db.selectFrom('oauth_connections').selectAll().executeTakeFirstOrThrow()
    expect(stored.sealed).not.toMatch(/eyJ/)
    // The refusal's connect link is alice's to use: it is not in the audit every operator reads.
    expect(rows.find((r) => r.status === 'error' && r.error_code === 'needs_auth')?.error_message).toContain('connect at [connect link]')
    expect(JSON.stringify(rows)).not.toContain('/oauth/start?link=')
    const everything = JSON.stringify([rows, events])
    expect(everything).not.toMatch(/eyJ[\w-]+\.[\w-]+\./)
    const connected = events.find((e) => e.kind === 'connection.connected')!
    expect(connected).toMatchObject({ subject: 'connection:svc', actor_name: 'alice' })
    expect(JSON.parse(connected.details)).toMatchObject({ account: 'person', subject: 'alice', scopes: expect.arrayContaining(['issues:read']) })

    // The person sees their connection; never a token.
    const mine = (await (await fetch(`${server.url}/api/connections`, { headers: { authorization: `Bearer ${alice}` } })).json()) as any
    expect(mine.providers).toEqual([{ name: 'svc', title: 'Test Service', defaultScopes: ['issues:read'] }])
    expect(mine.connections).toEqual([expect.objectContaining({ provider: 'svc', account: 'person', subject: 'alice', state: 'ready', missingScopes: [] })])
    expect(JSON.stringify(mine)).not.toMatch(/eyJ/)
    const bobs = (await (await fetch(`${server.url}/api/connections`, { headers: { authorization: `Bearer ${bob}` } })).json()) as any
    expect(bobs.connections).toEqual([])
  })

  it('takes a state once, refuses forged links and states, and another person’s flow', async () => {
    const { server, key } = await start()
    const alice = await key('alice')
    const link: string = (await invoke(server, alice, 'svc_whoami')).body.error.details.authorizationUrl
    const first = await connect(link, 'alice')
    expect(first.status).toBe(302)
    // The same callback again (a replayed code and state): refused, nothing changes.
    const replay = await fetch(first.callback!, { redirect: 'manual', headers: { cookie: first.cookie } })
    expect(replay.status).toBe(400)
    expect(await replay.text()).toContain('unknown, already used or expired')
    // A state nobody started.
    const forged = await fetch(`${server.url}/oauth/callback?code=abc&state=forged-state`, { redirect: 'manual' })
    expect(forged.status).toBe(400)
    // A link altered by one character, and no link.
    const tampered = link.slice(0, -3) + (link.endsWith('A') ? 'BBB' : 'AAA')
    for (const bad of [tampered, `${server.url}/oauth/start`]) {
      const response = await fetch(bad, { redirect: 'manual' })
      expect(response.status).toBe(400)
      expect(await response.text()).toContain('this connect link is not valid')
    }
    // Markup a provider sends back is shown as text.
    const hostile = await fetch(`${server.url}/oauth/callback?state=%3Cscript%3Ealert(1)%3C%2Fscript%3E`, { redirect: 'manual' })
    expect(await hostile.text()).not.toContain('<script>')
  })

  it('refuses a link, and a flow, past their time', async () => {
    let now = Date.now()
    const plane = await createSkillplane({ config: config(), ...(await database.create()), logger: silentLogger(), sync: true, clock: () => new Date(now) })
    cleanup.push(() => plane.close())
    const server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    cleanup.push(() => server.close())
    await plane.values.secrets.set('SVC_CLIENT_SECRET', SERVICE_CLIENT.clientSecret, {})
    const stale = plane.oauth.authorizationUrl('svc', 'alice', [])
    now += 600_001
    const late = await fetch(stale, { redirect: 'manual' })
    expect(late.status).toBe(400)
    expect(await late.text()).toContain('this connect link has expired')

    const expired = await connectInBrowser(plane.oauth.authorizationUrl('svc', 'alice', []), async (url) => {
      const callback = await service.approve(url, 'alice')
      now += 600_001
      return callback
    })
    expect(expired.status).toBe(400)
    expect(expired.page).toContain('unknown, already used or expired')
    expect(plane.oauth.state('svc', 'alice', []).state).toBe('needs_auth')
  })

  it('finishes a flow only in the browser that started it, and returns only to this server', async () => {
    const { server, key } = await start()
    const bob = await key('bob')
    const alice = await key('alice')
    // Bob starts his own flow but sends the provider's page to alice instead of following it: her consent connects nobody.
    const bobs: string = (await invoke(server, bob, 'svc_whoami')).body.error.details.authorizationUrl
    const forwarded = await connectInBrowser(bobs, async (url) => {
      const callback = await service.approve(url, 'alice')
      // Alice's browser comes back without bob's cookie.
      const back = await fetch(callback, { redirect: 'manual' })
      expect(back.status).toBe(400)
      expect(await back.text()).toContain('started in another browser')
      return callback
    })
    // The attempt was spent by that refusal.
    expect(forwarded.status).toBe(400)
    expect((await invoke(server, bob, 'svc_whoami')).status).toBe(424)

    // A return path a browser would resolve to another host is not followed.
    const sneaky = await fetch(`${server.url}/api/connections/svc/authorize`, {
      method: 'POST',
      headers: { authorization: `Bearer ${alice}`, 'content-type': 'application/json' },
      body: JSON.stringify({ returnTo: '/.//evil.example/x' }),
    })
    const done = await connect(((await sneaky.json()) as { authorizationUrl: string }).authorizationUrl, 'alice')
    expect(done.location).toBe('/connections?connected=svc')
  })

  it('shows the provider’s refusal, keeps nothing, and stays needs_auth', async () => {
    const { server, key } = await start()
    const alice = await key('alice')
    const link: string = (await invoke(server, alice, 'svc_whoami')).body.error.details.authorizationUrl
    const denied = await connect(link, 'alice', 'deny')
    expect(denied.status).toBe(400)
    expect(denied.page).toContain('access_denied')
    expect(denied.page).toContain('the person did not allow it')
    expect((await invoke(server, alice, 'svc_whoami')).status).toBe(424)
  })

  it('answers 503 while the token endpoint is down, and the same callback works once it is back', async () => {
    const { server, key } = await start()
    const alice = await key('alice')
    const link: string = (await invoke(server, alice, 'svc_whoami')).body.error.details.authorizationUrl
    const down = await connectInBrowser(link, async (url) => {
      const callback = await service.approve(url, 'alice')
      service.setTokenEndpointDown(true)
      return callback
    })
    expect(down.status).toBe(503)
    expect(down.headers.get('retry-after')).toBe('5')
    expect(down.page).toContain('503')
    service.setTokenEndpointDown(false)
    const again = await fetch(down.callback!, { redirect: 'manual', headers: { cookie: down.cookie } })
    expect(again.status).toBe(302)
    expect((await invoke(server, alice, 'svc_whoami')).body.data.sub).toBe('alice')
  })

  it('refreshes an expiring token before the call, keeps working through a provider outage while the token lasts, and asks again when the refresh token is revoked', async () => {
    const { plane, server, key } = await start()
    const alice = await key('alice')
    await connect((await invoke(server, alice, 'svc_whoami')).body.error.details.authorizationUrl, 'alice')
    const db = await rawDb(plane)
    const expireIn = (ms: number) =>
      db
        .updateTable('oauth_connections')
        .set({ expires_at: new Date(Date.now() + ms).toISOString() })
        .where('subject', '=', 'alice')
        .execute()
    const before = service.refreshes
    await expireIn(10_000)
    expect((await invoke(server, alice, 'svc_whoami')).body.data.sub).toBe('alice')
    expect(service.refreshes).toBe(before + 1)
    // Refreshed: the next call uses the new token without another refresh.
    expect((await invoke(server, alice, 'svc_whoami')).status).toBe(200)
    expect(service.refreshes).toBe(before + 1)

    // Due, but the provider is down: the token still valid is used; an expired one answers unavailable, and the connection stays.
    await expireIn(10_000)
    service.setTokenEndpointDown(true)
    expect((await invoke(server, alice, 'svc_whoami')).status).toBe(200)
    await expireIn(-1_000)
    const unavailable = await invoke(server, alice, 'svc_whoami')
    expect(unavailable.status).toBe(503)
    expect(unavailable.body.error.code).toBe('unavailable')
    service.setTokenEndpointDown(false)
    expect((await invoke(server, alice, 'svc_whoami')).status).toBe(200)

    // Revoked at the provider: the refresh is refused, the connection needs alice again, with the reason.
    expect(await service.revokeRefreshTokens('alice')).toBeGreaterThan(0)
    await expireIn(-1_000)
    const revoked = await invoke(server, alice, 'svc_whoami')
    expect(revoked.status).toBe(424)
    expect(revoked.body.error.message).toMatch(/the provider refused to refresh it: .*invalid_grant/)
    expect(revoked.body.error.details.authorizationUrl).toMatch(/\/oauth\/start\?link=/)
    const mine = (await (await fetch(`${server.url}/api/connections`, { headers: { authorization: `Bearer ${alice}` } })).json()) as any
    expect(mine.connections[0]).toMatchObject({ state: 'needs_auth', reason: expect.stringContaining('invalid_grant') })
    // Reconnecting makes it ready again.
    await connect(revoked.body.error.details.authorizationUrl, 'alice')
    expect((await invoke(server, alice, 'svc_whoami')).status).toBe(200)
  })

  it('says which scopes the provider did not grant, and asks for them again', async () => {
    const { server, key } = await start()
    const carol = await key('carol')
    service.limitConsent('carol', ['issues:read'])
    const refused = await invoke(server, carol, 'svc_write')
    expect(refused.body.error.details.oauth.missingScopes).toEqual(['issues:read', 'issues:write'])
    const done = await connect(refused.body.error.details.authorizationUrl, 'carol')
    expect(done.location).toBe('/connections?connected=svc&missingScopes=issues%3Awrite')
    const still = await invoke(server, carol, 'svc_write')
    expect(still.status).toBe(424)
    expect(still.body.error.details.oauth.missingScopes).toEqual(['issues:write'])
    expect(still.body.error.message).toContain('lacks the scope issues:write')
    // What was granted is enough for the reading skill.
    expect((await invoke(server, carol, 'svc_whoami')).status).toBe(200)
  })

  it('stops using a disabled person’s tokens, even for an agent acting for them', async () => {
    const { plane, server, key } = await start()
    const alice = await key('alice')
    await connect((await invoke(server, alice, 'svc_whoami')).body.error.details.authorizationUrl, 'alice')
    const aliceCaller = { ...operator, id: 'k-alice', name: 'alice' }
    const helper = agentCaller('helper')
    expect((await plane.invoke('svc_whoami', {}, { caller: helper, onBehalfOf: aliceCaller })).ok).toBe(true)
    // An agent acting for nobody has no person's account to use.
    const nobody = await plane.invoke('svc_whoami', {}, { caller: helper })
    expect(nobody).toMatchObject({ ok: false, error: { code: 'needs_auth', message: expect.stringContaining('acts for no person') } })
    await plane.people.users.disable('alice', { id: 'root', name: 'root' })
    const disabled = await plane.invoke('svc_whoami', {}, { caller: helper, onBehalfOf: aliceCaller })
    expect(disabled).toMatchObject({ ok: false, error: { code: 'needs_auth', message: expect.stringContaining('alice is disabled') } })
  })

  it('disconnects (revoking at the provider), and serves skills of the service account from an admin’s connection', async () => {
    const { server, key } = await start()
    const adminKey = await key('root', 'admin')
    const alice = await key('alice')
    const bob = await key('bob')
    await connect((await invoke(server, alice, 'svc_whoami')).body.error.details.authorizationUrl, 'alice')
    const revocations = service.revocations
    const gone = await fetch(`${server.url}/api/connections/svc`, { method: 'DELETE', headers: { authorization: `Bearer ${alice}` } })
    expect(gone.status).toBe(200)
    expect(await gone.json()).toMatchObject({ provider: 'svc', subject: 'alice', revoked: true })
    expect(service.revocations).toBeGreaterThan(revocations)
    expect((await invoke(server, alice, 'svc_whoami')).status).toBe(424)
    expect((await fetch(`${server.url}/api/connections/svc`, { method: 'DELETE', headers: { authorization: `Bearer ${alice}` } })).status).toBe(404)

    // The service account: only an admin connects it; then every caller's call runs with it.
    // Its link is never handed to a caller: they could connect their own account as everyone's.
    const unconnected = await invoke(server, bob, 'svc_shared')
    expect(unconnected.status).toBe(424)
    expect(unconnected.body.error.details.authorizationUrl).toBeUndefined()
    expect(unconnected.body.error.message).toContain('an admin connects it')
    expect(unconnected.body.error.message).not.toContain('/oauth/start')
    const asBob = await fetch(`${server.url}/api/connections/svc/authorize`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bob}`, 'content-type': 'application/json' },
      body: JSON.stringify({ account: 'service' }),
    })
    expect(asBob.status).toBe(403)
    const asAdmin = await fetch(`${server.url}/api/connections/svc/authorize`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ account: 'service', returnTo: '/skills/svc_shared' }),
    })
    const { authorizationUrl } = (await asAdmin.json()) as { authorizationUrl: string }
    const done = await connect(authorizationUrl, 'ops-robot')
    expect(done.location).toBe('/skills/svc_shared?connected=svc')
    expect((await invoke(server, bob, 'svc_shared')).body.data.sub).toBe('ops-robot')
    expect((await invoke(server, alice, 'svc_shared')).body.data.sub).toBe('ops-robot')
    const all = (await (await fetch(`${server.url}/api/connections?all=true`, { headers: { authorization: `Bearer ${adminKey}` } })).json()) as any
    expect(all.connections).toEqual([expect.objectContaining({ account: 'service', subject: null, connectedBy: 'root' })])
    expect((await fetch(`${server.url}/api/connections?all=true`, { headers: { authorization: `Bearer ${bob}` } })).status).toBe(403)
    // A return path off this server is not followed.
    const offsite = await fetch(`${server.url}/api/connections/svc/authorize`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bob}`, 'content-type': 'application/json' },
      body: JSON.stringify({ returnTo: '//evil.example/x' }),
    })
    expect((await connect(((await offsite.json()) as { authorizationUrl: string }).authorizationUrl, 'bob')).location).toBe('/connections?connected=svc')
  })

  it('keeps connections through a rotation of the secrets key', async () => {
    const { plane, server, key } = await start()
    const alice = await key('alice')
    await connect((await invoke(server, alice, 'svc_whoami')).body.error.details.authorizationUrl, 'alice')
    const rotated = await plane.values.rotateSecretsKey(admin)
    // The client secret and alice's tokens.
    expect(rotated.resealed).toBe(2)
    expect((await invoke(server, alice, 'svc_whoami')).body.data.sub).toBe('alice')
  })

  it('names the missing client secret instead of starting a flow that cannot finish', async () => {
    const { plane, server, key } = await start()
    await plane.values.secrets.delete('SVC_CLIENT_SECRET', {})
    const alice = await key('alice')
    const started = await fetch((await invoke(server, alice, 'svc_whoami')).body.error.details.authorizationUrl, { redirect: 'manual' })
    expect(started.status).toBe(503)
    expect(await started.text()).toContain('skillplane secrets set SVC_CLIENT_SECRET')
  })

  it.runIf(database.name === 'postgres')('refreshes once when two managers need the same connection at once', async () => {
    const first = await start()
    const alice = await first.key('alice')
    await connect((await invoke(first.server, alice, 'svc_whoami')).body.error.details.authorizationUrl, 'alice')
    const lateDir = tempDir()
    for (const file of ['secrets-key', 'approval-secret']) copyFileSync(join(first.plane.status.dataDir, file), join(lateDir, file))
    const second = await start({ dataDir: lateDir, databaseUrl: first.plane.status.location })
    await waitFor(() => second.plane.oauth.state('svc', 'alice', []).state === 'ready')
    const db = await rawDb(first.plane)
    await db
      .updateTable('oauth_connections')
      .set({ expires_at: new Date(Date.now() + 5_000).toISOString() })
      .execute()
    const before = service.refreshes
    const calls = await Promise.all([...Array(6)].map((_, i) => invoke(i % 2 ? first.server : second.server, alice, 'svc_whoami')))
    expect(calls.map((c) => c.status)).toEqual([200, 200, 200, 200, 200, 200])
    expect(service.refreshes).toBe(before + 1)
    expect(first.plane.oauth.state('svc', 'alice', []).state).toBe('ready')
  })
})

describe('declaring an OAuth connection', () => {
  const [sqlite] = databases
  const skill = (oauth: unknown, extra: object = {}) =>
    defineSkill({ key: 'needs_oauth', description: 'x', class: 'safe', oauth: oauth as never, ...extra, run: () => null })

  it('refuses a malformed declaration, a provider the config lacks, and a secret the token would shadow', async () => {
    const oauth = { providers: { github: { issuer: 'https://github.example.com', clientId: 'x' } } }
    const refused = (declared: unknown, extra?: object) => expect(openTestPlane(sqlite!, { skills: [skill(declared, extra)], oauth })).rejects
    await refused({ provider: 'github', scope: ['repo'] }).toThrow(/oauth has unknown field "scope"/)
    await refused({ provider: 'github', account: 'team' }).toThrow(/oauth\.account must be "person" or "service"/)
    await refused({ provider: 'github', scopes: ['a b'] }).toThrow(/oauth\.scopes must be a list of scope tokens/)
    await refused({ provider: 'github' }, { secrets: ['github'] }).toThrow(/oauth\.provider github is also a declared secret/)
    await refused({ provider: 'mcp:Not Valid' }).toThrow(/oauth\.provider must name a provider/)
    await refused({ provider: 'githib' }).toThrow(
      /skills\[\d+\] \(needs_oauth\)\.oauth\.provider: no OAuth provider "githib" in the config's oauth\.providers \(did you mean "github"\?\)/,
    )
    await expect(openTestPlane(sqlite!, { oauth: { providers: { x: { clientId: 'x' } } } })).rejects.toThrow(
      /give the issuer .* or both authorizationEndpoint and tokenEndpoint/,
    )
  })
})

// GitHub's token endpoint: no metadata, comma-separated scopes, errors answered with HTTP 200, no RFC 7009 revocation.
describe('a GitHub-like provider', () => {
  const [sqlite] = databases
  let http: Server
  let answer: object = {}
  let plane: Skillplane
  let server: HttpServer
  beforeAll(async () => {
    http = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer)))
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
    const origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`
    const repos = defineSkill({ key: 'gh_repos', description: 'x', class: 'safe', oauth: { provider: 'gh' }, run: () => ({ ran: true }) })
    plane = await openTestPlane(sqlite!, {
      skills: [repos],
      oauth: {
        providers: {
          gh: {
            authorizationEndpoint: `${origin}/login/oauth/authorize`,
            tokenEndpoint: `${origin}/login/oauth/access_token`,
            clientId: 'Iv1.x',
            scopes: ['repo', 'read:org'],
          },
        },
      },
    })
    server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
  })
  afterAll(async () => {
    await server?.close()
    await plane?.close()
    await new Promise<void>((resolve) => http.close(() => resolve()))
  })
  /** Through skillplane's start, the "provider" sending the browser straight back with a code. */
  const connect = () =>
    connectInBrowser(plane.oauth.authorizationUrl('gh', 'alice', []), async (url) => {
      const back = new URL(`${server.url}/oauth/callback`)
      back.search = new URLSearchParams({ code: 'c0de', state: new URL(url).searchParams.get('state')! }).toString()
      return back
    })

  it('reads comma-separated scopes, takes an error in a 200 answer as a refusal, and says nothing was revoked', async () => {
    answer = { error: 'bad_verification_code', error_description: 'The code passed is incorrect or expired.' }
    const refused = await connect()
    expect(refused.status).toBe(400)
    expect(refused.page).toContain('bad_verification_code: The code passed is incorrect or expired.')

    answer = { access_token: 'gho_abc', token_type: 'bearer', scope: 'read:org,repo' }
    expect((await connect()).location).toBe('/connections?connected=gh')
    expect(plane.oauth.state('gh', 'alice', []).state).toBe('ready')
    expect(await plane.invoke('gh_repos', {}, { caller: { ...operator, name: 'alice' } })).toMatchObject({ ok: true })
    expect(await plane.oauth.disconnect('gh', 'alice', admin)).toMatchObject({ provider: 'gh', revoked: false })
  })
})
