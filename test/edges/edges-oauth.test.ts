import { chmodSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SERVICE_CLIENT, connectInBrowser, startTestOAuthService, type TestOAuthService, serviceProvider } from '../../src/test-support/oauth-service.js'
import { startResourceServer, type TestResourceServer } from '../../src/test-support/resource-server.js'
import { enrollAndStart, startManager, tempDir, waitFor } from './edge-harness.js'

/** Edge packs: one calling the tracker with the caller's token, one naming a provider the manager doesn't have, one listing its environment. */
function oauthPacks(tracker: string): string {
  const root = join(tempDir('skillplane-edge-oauth-packs-'), 'packs')
  const pack = (name: string, manifest: object, body: string) => {
    mkdirSync(join(root, name), { recursive: true })
    writeFileSync(join(root, name, 'run.mjs'), `#!${process.execPath}\nfor await (const _ of process.stdin);\n${body}\n`)
    chmodSync(join(root, name, 'run.mjs'), 0o755)
    writeFileSync(join(root, name, 'skill.json'), JSON.stringify({ name, entry: 'run.mjs', class: 'safe', ...manifest }))
  }
  pack(
    'edge_tracker_me',
    { description: 'Who the tracker takes the caller to be, asked from an edge', oauth: { provider: 'tracker', scopes: ['issues:read'] } },
    `const response = await fetch(${JSON.stringify(`${tracker}/me`)}, { headers: { authorization: 'Bearer ' + process.env.TRACKER_TOKEN } })
console.log(JSON.stringify({ status: response.status, ...(await response.json()) }))`,
  )
  pack('edge_elsewhere', { description: 'Names a provider the manager does not have', oauth: { provider: 'elsewhere' } }, 'console.log("{}")')
  pack('edge_env', { description: 'Lists the names of its environment variables' }, 'console.log(JSON.stringify(Object.keys(process.env)))')
  return root
}

describe('OAuth connections of edge packs', () => {
  let service: TestOAuthService
  let tracker: TestResourceServer
  beforeAll(async () => {
    service = await startTestOAuthService()
    tracker = await startResourceServer(service.issuer, service.api)
  })
  afterAll(async () => {
    await tracker?.close()
    await service?.close()
  })

  it("sends an edge pack the caller's token with that call only, once the edge is granted the provider and the caller has connected", async () => {
    const manager = await startManager(
      { dataDir: tempDir() },
      {
        oauth: {
          providers: {
            tracker: serviceProvider(service, 'TRACKER_CLIENT_SECRET'),
          },
        },
      },
    )
    await manager.plane.values.secrets.set('TRACKER_CLIENT_SECRET', SERVICE_CLIENT.clientSecret, {})
    const alice = (await manager.plane.people.keys.create({ name: 'alice', role: 'operator' }, manager.plane.now())).key
    const { edge } = await enrollAndStart(manager, 'tracker-1', { args: ['--packs', oauthPacks(tracker.url)] })
    await waitFor(() => manager.plane.skills.get('edge_tracker_me') !== undefined)
    // A provider the manager doesn't have: the offer is refused, and the edge is told why.
    expect(manager.plane.skills.get('edge_elsewhere')).toBeUndefined()
    await waitFor(() => edge.output().includes('edge_elsewhere'))
    const logged = edge
      .output()
      .split('\n')
      .filter((line) => line.includes('edge_elsewhere'))
      .map((line) => (JSON.parse(line) as { msg: string }).msg)
    expect(logged).toEqual([`the manager did not take this skill: no OAuth provider "elsewhere" in the config's oauth.providers (it has "tracker")`])
    expect(manager.plane.skills.get('edge_tracker_me')!.oauth).toEqual({ provider: 'tracker', scopes: ['issues:read'], account: 'person' })

    const call = (input: object = {}, key = 'edge_tracker_me') => manager.invoke(key, { input, edgeId: 'tracker-1' }, { key: alice })
    // The edge's own announcement can't get it people's tokens: an admin grants the provider first.
    const ungranted = await call()
    expect(ungranted).toMatchObject({
      status: 403,
      body: { ok: false, error: { code: 'denied', message: expect.stringContaining('edge "tracker-1" declares the OAuth connection tracker') } },
    })
    expect(ungranted.body.error.message).toContain('skillplane edges secrets tracker-1 tracker')
    expect(await manager.api('PUT', '/api/edges/tracker-1/secrets', { secrets: ['tracker'] })).toMatchObject({ status: 200 })

    const sent = tracker.received.length
    const before = await call()
    expect(before).toMatchObject({
      status: 424,
      body: {
        error: { code: 'needs_auth', details: { oauth: { provider: 'tracker', missingScopes: ['issues:read'] }, authorizationUrl: expect.any(String) } },
      },
    })
    expect((await connectInBrowser(before.body.error.details.authorizationUrl, (url) => service.approve(url, 'alice'))).status).toBe(302)
    // Nothing reached the edge's pack, nor the tracker, before she connected.
    expect(tracker.received.length).toBe(sent)

    const ran = await call()
    expect(ran).toMatchObject({ status: 200, body: { ok: true, data: { status: 200, subject: 'alice', authorization: 'Bearer [REDACTED]' } } })
    const token = tracker.received.at(-1)!.authorization!.slice('Bearer '.length)
    expect(tracker.received.at(-1)!.subject).toBe('alice')
    // Another pack on the same edge never sees it: the edge holds no token between calls.
    const other = await call({}, 'edge_env')
    expect(other.status).toBe(200)
    expect(other.body.data).not.toContain('TRACKER_TOKEN')
    expect(JSON.stringify((await manager.api('GET', '/api/audit?limit=20')).body) + edge.output()).not.toContain(token)
  })
})
