import { afterEach, describe, expect, it } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { databases } from '../test-support/databases.js'
import { admin, agentCaller, approvalIdOf, openTestPlane } from '../test-support/fixtures.js'
import { sopSigner } from '../test-support/sop.js'
import { startHttpServer, type HttpServer } from '../surfaces/http/index.js'

describe.each(databases)('users and groups on $name', (database) => {
  const cleanup: Array<() => Promise<unknown>> = []
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step().catch(() => {})
  })

  async function setUp(config = {}, location?: { dataDir: string; databaseUrl?: string }) {
    const plane = await openTestPlane(database, config, location)
    cleanup.push(() => plane.close())
    const server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    cleanup.push(() => server.close())
    const root = (await plane.people.keys.create({ name: 'root', role: 'admin' }, plane.now())).key
    const http = async (key: string, method: string, path: string, body?: unknown) => {
      const response = await fetch(server.url + path, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      return { status: response.status, body: (await response.json()) as any }
    }
    return { plane, server, root, http }
  }

  async function mcpClient(server: HttpServer, key: string): Promise<Client> {
    const client = new Client({ name: 'users-test', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }))
    cleanup.push(() => client.close())
    return client
  }

  it('counts two approvers who are the same user under two keys once, refuses self-approval across keys, and records the user', async () => {
    const signer = sopSigner()
    const { plane, root, http } = await setUp({ sopKeys: [signer.config] })
    await plane.people.users.add({ name: 'alice', displayName: 'Alice Liddell', role: 'admin' }, admin)
    const laptop = await plane.people.keys.create({ name: 'alice-laptop', user: 'alice' }, plane.now())
    const ci = await plane.people.keys.create({ name: 'alice-ci', role: 'admin', user: 'alice' }, plane.now())
    const bob = (await plane.people.keys.create({ name: 'bob', role: 'admin' }, plane.now())).key
    expect((await http(root, 'POST', '/api/sops', signer.sop({ id: 'wipes', skills: ['wipe_things'] }))).status).toBe(201)

    // A dangerous call alice asks for with one key: her other key is still her.
    const asked = await http(laptop.key, 'POST', '/api/skills/wipe_things/invoke', { input: { count: 1 } })
    expect(asked.status).toBe(202)
    const own = asked.body.error.details.approvalId as string
    const selfApproval = await http(ci.key, 'POST', `/api/approvals/${own}/approve`, { sopId: 'wipes' })
    expect(selfApproval).toMatchObject({ status: 403, body: { error: { code: 'denied', message: 'the requester cannot approve their own request' } } })
    const audited = await http(root, 'GET', `/api/audit/${asked.body.callId}`)
    expect(audited.body.caller).toEqual({
      id: laptop.user.id,
      name: 'alice',
      kind: 'user',
      role: 'admin',
      user: { id: laptop.user.id, displayName: 'Alice Liddell' },
      auth: 'key',
      keyId: laptop.id,
    })

    // Two approvals by alice under two keys are one person's: the request needing two stays pending.
    const id = approvalIdOf(await plane.invoke('wipe_things', { count: 2 }, { caller: agentCaller('helper') }))
    expect((await http(laptop.key, 'POST', `/api/approvals/${id}/approve`, { sopId: 'wipes' })).body).toMatchObject({ status: 'pending' })
    const again = await http(ci.key, 'POST', `/api/approvals/${id}/approve`, { sopId: 'wipes' })
    expect(again).toMatchObject({ status: 409, body: { error: { code: 'conflict', message: `alice has already decided request ${id}` } } })
    const pending = (await http(root, 'GET', `/api/approvals/${id}`)).body
    expect(pending.status).toBe('pending')
    expect(pending.decisions.map((d: { approver: object }) => d.approver)).toEqual([
      { id: laptop.user.id, name: 'alice', role: 'admin', displayName: 'Alice Liddell', auth: 'key', keyId: laptop.id },
    ])
    expect((await http(bob, 'POST', `/api/approvals/${id}/approve`, { sopId: 'wipes' })).body).toMatchObject({ status: 'approved' })
  })

  it("refuses the user owning an agent key as an approver of that agent's requests", async () => {
    const { plane, http } = await setUp()
    await plane.people.users.add({ name: 'dora', role: 'operator' }, admin)
    const doraKey = (await plane.people.keys.create({ name: 'dora', user: 'dora' }, plane.now())).key
    const agentKey = await plane.people.keys.create({ name: 'doras-helper', role: 'agent', agentId: 'helper', user: 'dora' }, plane.now())
    const asked = await http(agentKey.key, 'POST', '/api/skills/write_thing/invoke', { input: { value: 'x' } })
    expect(asked.status).toBe(202)
    const request = (await http(doraKey, 'GET', `/api/approvals/${asked.body.error.details.approvalId}`)).body
    expect(request.requester).toEqual({
      id: agentKey.id,
      name: 'doras-helper',
      kind: 'agent',
      user: { id: agentKey.user.id, displayName: 'dora' },
      auth: 'key',
      keyId: agentKey.id,
    })
    expect((await http(doraKey, 'POST', `/api/approvals/${request.id}/approve`, {})).body.error.message).toBe(
      'dora owns the agent key that made this call, so another person must approve it',
    )
  })

  it('stops every key of a disabled user at once over HTTP and MCP, here and on a peer within a second', async () => {
    const location = await database.create()
    const { plane, server, root, http } = await setUp({}, location)
    const peer = await openTestPlane(database, {}, location)
    cleanup.push(() => peer.close())
    await plane.people.users.add({ name: 'erin', role: 'operator' }, admin)
    const first = (await plane.people.keys.create({ name: 'erin-1', user: 'erin' }, plane.now())).key
    const second = (await plane.people.keys.create({ name: 'erin-2', role: 'viewer', user: 'erin' }, plane.now())).key
    const client = await mcpClient(server, first)
    expect((await client.listTools()).tools.length).toBeGreaterThan(0)
    expect((await http(second, 'GET', '/api/me')).body.caller).toMatchObject({ kind: 'user', name: 'erin', role: 'viewer', auth: 'key' })
    expect(await peer.people.keys.authenticate(first)).toMatchObject({ name: 'erin' })

    const disabled = await http(root, 'PATCH', '/api/users/erin', { disabled: true })
    expect(disabled).toMatchObject({ status: 200, body: { name: 'erin', disabledAt: expect.any(String) } })
    for (const key of [first, second]) expect((await http(key, 'GET', '/api/me')).status).toBe(401)
    await expect(client.listTools()).rejects.toThrow(/unknown or revoked API key, or its user is disabled/)
    await new Promise((r) => setTimeout(r, 1_050))
    expect(await peer.people.keys.authenticate(first)).toBeNull()

    expect((await http(root, 'PATCH', '/api/users/erin', { disabled: false })).body.disabledAt).toBeNull()
    expect((await http(first, 'GET', '/api/me')).body.caller).toMatchObject({ name: 'erin', role: 'operator' })
    const rootUser = ((await http(root, 'GET', '/api/me')).body.caller as { id: string }).id
    expect(await http(root, 'PATCH', `/api/users/${rootUser}`, { disabled: true })).toMatchObject({
      status: 409,
      body: { error: { message: 'you cannot disable your own user: ask another admin' } },
    })
    await expect(plane.people.keys.create({ name: 'late', user: 'nobody' }, plane.now())).rejects.toThrow('no user "nobody"')
  })

  it('gives a key the lower of its own role and the highest its user has itself or through a group', async () => {
    const { plane, server, root, http } = await setUp()
    const me = async (key: string) => (await http(key, 'GET', '/api/me')).body.caller.role as string
    expect((await http(root, 'POST', '/api/users', { name: 'gina', displayName: 'Gina' })).status).toBe(201)
    const follows = (await plane.people.keys.create({ name: 'gina', user: 'gina' }, plane.now())).key
    const viewer = (await plane.people.keys.create({ name: 'gina-viewer', role: 'viewer', user: 'gina' }, plane.now())).key
    const admin = (await plane.people.keys.create({ name: 'gina-admin', role: 'admin', user: 'gina' }, plane.now())).key
    // No role anywhere: a key without one is a viewer, one with a role keeps it.
    expect([await me(follows), await me(viewer), await me(admin)]).toEqual(['viewer', 'viewer', 'admin'])
    expect((await http(follows, 'GET', '/api/audit')).status).toBe(403)

    const session = await mcpClient(server, follows)
    expect((await session.listTools()).tools.map((t) => t.name)).not.toContain('write_thing')
    expect((await http(root, 'POST', '/api/groups', { name: 'ops', role: 'operator' })).status).toBe(201)
    expect((await http(root, 'PUT', '/api/groups/ops/members/gina')).body).toMatchObject({ name: 'ops', members: ['gina'] })
    expect([await me(follows), await me(viewer), await me(admin)]).toEqual(['operator', 'viewer', 'operator'])
    expect((await http(follows, 'GET', '/api/audit')).status).toBe(200)
    // The MCP session listed a viewer's tools: it ends, and a new one lists an operator's.
    await expect(session.listTools()).rejects.toThrow(/Session not found/)
    expect((await (await mcpClient(server, follows)).listTools()).tools.map((t) => t.name)).toContain('write_thing')

    expect((await http(root, 'PATCH', '/api/groups/ops', { role: 'admin' })).body.role).toBe('admin')
    expect([await me(follows), await me(admin)]).toEqual(['admin', 'admin'])
    const listed = (await http(root, 'GET', '/api/users')).body.users.find((u: { name: string }) => u.name === 'gina')
    expect(listed).toMatchObject({ displayName: 'Gina', role: null, groups: ['ops'], grantedRole: 'admin', disabledAt: null })

    expect((await http(root, 'DELETE', '/api/groups/ops/members/gina')).body.members).toEqual([])
    expect((await http(root, 'PATCH', '/api/users/gina', { role: 'operator' })).body).toMatchObject({ role: 'operator', grantedRole: 'operator' })
    expect([await me(follows), await me(viewer), await me(admin)]).toEqual(['operator', 'viewer', 'operator'])

    expect((await http(root, 'POST', '/api/users', { name: 'gina' })).status).toBe(409)
    expect((await http(root, 'POST', '/api/groups', { name: 'ops', role: 'root' })).status).toBe(400)
    expect((await http(root, 'PUT', '/api/groups/ops/members/nobody')).status).toBe(404)
  })
})
