import { chmodSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { databases, tempDir } from '../../test-support/databases.js'
import { openTestPlane } from '../../test-support/fixtures.js'
import { SERVICE_CLIENT, connectInBrowser, startTestOAuthService, type TestOAuthService, serviceProvider } from '../../test-support/oauth-service.js'
import { startResourceServer, type TestResourceServer } from '../../test-support/resource-server.js'
import { startHttpServer, type HttpServer } from '../../surfaces/http/index.js'
import type { Skillplane } from '../../agents/index.js'

/** A pack that calls the tracker with the token in TRACKER_TOKEN and prints its answer (the token echoed), or fails quoting it. */
function trackerPack(root: string, tracker: string): void {
  const dir = join(root, 'tracker_pack')
  mkdirSync(dir, { recursive: true })
  writeFileSync(
    join(dir, 'run.mjs'),
    `#!${process.execPath}
let text = ''
for await (const chunk of process.stdin) text += chunk
const input = JSON.parse(text)
if (input.fail) {
  console.error('giving up with token ' + process.env.TRACKER_TOKEN)
  process.exit(3)
}
const response = await fetch(${JSON.stringify(`${tracker}/me`)}, { headers: { authorization: 'Bearer ' + process.env.TRACKER_TOKEN } })
console.log(JSON.stringify({ status: response.status, ...(await response.json()), env: Object.keys(process.env).sort() }))
`,
  )
  chmodSync(join(dir, 'run.mjs'), 0o755)
  writeFileSync(
    join(dir, 'skill.json'),
    JSON.stringify({
      name: 'tracker_pack',
      description: 'Who the tracker takes the caller to be, asked from a subprocess',
      entry: 'run.mjs',
      class: 'safe',
      oauth: { provider: 'tracker', scopes: ['issues:read'], env: 'TRACKER_TOKEN' },
    }),
  )
}

describe.each(databases)('OAuth connections of HTTP skills, OpenAPI operations and packs on $name', (database) => {
  let service: TestOAuthService
  let tracker: TestResourceServer
  let plane: Skillplane
  let server: HttpServer
  const keys: Record<string, string> = {}

  beforeAll(async () => {
    service = await startTestOAuthService()
    // The service's tokens are JWTs for its API; the tracker is that API's stand-in, checking them itself.
    tracker = await startResourceServer(service.issuer, service.api)
    const root = tempDir('skillplane-oauth-packs-')
    trackerPack(root, tracker.url)
    plane = await openTestPlane(database, {
      oauth: {
        providers: {
          tracker: serviceProvider(service, 'TRACKER_CLIENT_SECRET'),
        },
      },
      httpSkills: [
        {
          key: 'tracker_me',
          description: 'Who the tracker takes the caller to be',
          method: 'GET',
          url: `${tracker.url}/me`,
          oauth: { provider: 'tracker', scopes: ['issues:read'] },
        },
        {
          key: 'tracker_me_shared',
          description: 'Who the tracker takes skillplane to be',
          method: 'GET',
          url: `${tracker.url}/me`,
          oauth: { provider: 'tracker', account: 'service' },
        },
      ],
      openapi: [{ name: 'issues', spec: `${tracker.url}/openapi.json`, oauth: { provider: 'tracker' } }],
      packDirs: [root],
    })
    await plane.values.secrets.set('TRACKER_CLIENT_SECRET', SERVICE_CLIENT.clientSecret, {})
    server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    for (const name of ['alice', 'bob', 'carol']) keys[name] = (await plane.people.keys.create({ name, role: 'operator' }, plane.now())).key
  })
  afterAll(async () => {
    await server?.close()
    await plane?.close()
    await tracker?.close()
    await service?.close()
  })

  const invoke = async (as: string, skill: string, input: object = {}) => {
    const response = await fetch(`${server.url}/api/skills/${skill}/invoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${keys[as]}`, 'content-type': 'application/json' },
      body: JSON.stringify({ input }),
    })
    return { status: response.status, body: (await response.json()) as any }
  }

  /** Follow a needs_auth link as a person's browser would: skillplane's link, the service's sign-in and consent, skillplane's callback. */
  const connect = async (link: string, account: string) => {
    expect((await connectInBrowser(link, (url) => service.approve(url, account))).status).toBe(302)
  }

  /** The token the tracker last received (and verified), from its own record. */
  const lastToken = () => tracker.received.at(-1)!.authorization!.slice('Bearer '.length)

  it("sends alice's token as a bearer once she connects: needs_auth before, per person, scrubbed from the result and the audit when echoed", async () => {
    const sent = tracker.received.length
    const before = await invoke('alice', 'tracker_me')
    expect(before).toMatchObject({
      status: 424,
      body: {
        ok: false,
        error: { code: 'needs_auth', details: { oauth: { provider: 'tracker', missingScopes: ['issues:read'] }, authorizationUrl: expect.any(String) } },
      },
    })
    // Nothing reached the tracker.
    expect(tracker.received.length).toBe(sent)

    await connect(before.body.error.details.authorizationUrl, 'alice')
    const after = await invoke('alice', 'tracker_me')
    expect(after).toMatchObject({ status: 200, body: { ok: true, data: { subject: 'alice', scopes: ['issues:read'], authorization: 'Bearer [REDACTED]' } } })
    // The tracker verified a real token of the service, issued to alice.
    expect(tracker.received.at(-1)!.subject).toBe('alice')
    const token = lastToken()
    expect(token.split('.')).toHaveLength(3)

    // bob has not connected: his calls wait for his own connection, with his own link.
    const bob = await invoke('bob', 'tracker_me')
    expect(bob).toMatchObject({ status: 424, body: { error: { code: 'needs_auth' } } })
    expect(bob.body.error.details.authorizationUrl).not.toBe(before.body.error.details.authorizationUrl)
    // The service account is a connection of its own: alice's doesn't serve it.
    expect(await invoke('alice', 'tracker_me_shared')).toMatchObject({
      status: 424,
      body: { error: { code: 'needs_auth', details: { oauth: { provider: 'tracker' } } } },
    })

    const rows = await plane.audit.query({ skill: 'tracker_me', limit: 10 })
    expect(rows.items.map((r) => r.status).sort()).toEqual(['error', 'error', 'ok'])
    expect(JSON.stringify(rows) + JSON.stringify(after.body)).not.toContain(token)
  })

  it("sends the service account's token, once an admin connects it, for every caller", async () => {
    keys.root = (await plane.people.keys.create({ name: 'root', role: 'admin' }, plane.now())).key
    const response = await fetch(`${server.url}/api/connections/tracker/authorize`, {
      method: 'POST',
      headers: { authorization: `Bearer ${keys.root}`, 'content-type': 'application/json' },
      body: JSON.stringify({ account: 'service' }),
    })
    expect(response.status).toBe(200)
    await connect(((await response.json()) as { authorizationUrl: string }).authorizationUrl, 'depot-robot')
    for (const person of ['alice', 'carol']) {
      expect(await invoke(person, 'tracker_me_shared')).toMatchObject({
        status: 200,
        body: { ok: true, data: { subject: 'depot-robot', authorization: 'Bearer [REDACTED]' } },
      })
    }
    expect(JSON.stringify(await plane.audit.query({ skill: 'tracker_me_shared', limit: 10 }))).not.toContain(lastToken())
  })

  it('gives each OpenAPI operation the scopes its security requirement lists; a connection short of one is not used', async () => {
    expect(plane.skills.get('issues_whoami')!.oauth).toEqual({ provider: 'tracker', scopes: ['issues:read'], account: 'person' })
    expect(plane.skills.get('issues_open_issue')!.oauth).toEqual({ provider: 'tracker', scopes: ['issues:write'], account: 'person' })
    // security: [] is public: no connection, nothing sent but the call.
    expect(plane.skills.get('issues_status')!.oauth).toBeNull()
    expect(await invoke('carol', 'issues_status')).toMatchObject({ status: 200, body: { ok: true, data: { status: 'ok' } } })
    expect(tracker.received.at(-1)!.authorization).toBeUndefined()

    // bob grants only issues:read at the service.
    service.limitConsent('bob', ['issues:read'])
    const before = await invoke('bob', 'issues_whoami')
    expect(before).toMatchObject({
      status: 424,
      body: { error: { code: 'needs_auth', details: { oauth: { provider: 'tracker', missingScopes: ['issues:read'] } } } },
    })
    await connect(before.body.error.details.authorizationUrl, 'bob')
    expect(await invoke('bob', 'issues_whoami')).toMatchObject({
      status: 200,
      body: { ok: true, data: { subject: 'bob', authorization: 'Bearer [REDACTED]' } },
    })
    const token = lastToken()
    const sent = tracker.received.length
    expect(await invoke('bob', 'issues_open_issue')).toMatchObject({
      status: 424,
      body: { error: { code: 'needs_auth', details: { oauth: { provider: 'tracker', missingScopes: ['issues:write'] } } } },
    })
    expect(tracker.received.length).toBe(sent)
    expect(JSON.stringify(await plane.audit.query({ skill: 'issues_whoami', limit: 10 }))).not.toContain(token)
  })

  it("gives a pack the caller's token in the variable it names, for that call only, scrubbed from what it prints", async () => {
    const before = await invoke('carol', 'tracker_pack')
    expect(before).toMatchObject({
      status: 424,
      body: {
        error: { code: 'needs_auth', details: { oauth: { provider: 'tracker', missingScopes: ['issues:read'] }, authorizationUrl: expect.any(String) } },
      },
    })
    await connect(before.body.error.details.authorizationUrl, 'carol')
    const ran = await invoke('carol', 'tracker_pack')
    expect(ran).toMatchObject({ status: 200, body: { ok: true, data: { status: 200, subject: 'carol', authorization: 'Bearer [REDACTED]' } } })
    // Its one variable, nothing of the manager's environment.
    expect(ran.body.data.env).toEqual(['TRACKER_TOKEN'])
    const token = lastToken()
    // alice connected in the first test: the pack runs with her token, not carol's.
    expect(await invoke('alice', 'tracker_pack')).toMatchObject({ status: 200, body: { data: { subject: 'alice' } } })

    const failed = await invoke('carol', 'tracker_pack', { fail: true })
    expect(failed).toMatchObject({
      status: 502,
      body: { ok: false, error: { code: 'executor_error', message: expect.stringContaining('giving up with token [REDACTED]') } },
    })
    expect(JSON.stringify(await plane.audit.query({ skill: 'tracker_pack', limit: 10 })) + JSON.stringify(failed.body)).not.toContain(token)
  })
})
