import { afterEach, describe, expect, it } from 'vitest'
import { databases } from '../../test-support/databases.js'
import { openTestPlane } from '../../test-support/fixtures.js'
import type { Skillplane } from '../../agents/index.js'
import { startHttpServer, type HttpServer } from './start-http-server.js'

describe.each(databases)('approval grants over HTTP on $name', (database) => {
  let plane: Skillplane | undefined
  let server: HttpServer | undefined
  afterEach(async () => {
    await server?.close()
    await plane?.close()
  })

  const start = async () => {
    plane = await openTestPlane(database)
    server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    const make = async (name: string, role: 'admin' | 'operator' | 'viewer' | 'agent', agentId?: string) =>
      (await plane!.people.keys.create({ name, role, agentId }, plane!.now())).key
    const keys = {
      admin: await make('alice', 'admin'),
      operator: await make('oscar', 'operator'),
      operator2: await make('olga', 'operator'),
      viewer: await make('vera', 'viewer'),
      helper: await make('helper-bot', 'agent', 'helper'),
    }
    const call = async (key: string, path: string, init: { method?: string; body?: unknown } = {}) => {
      const response = await fetch(server!.url + path, {
        method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      })
      return { status: response.status, body: (await response.json()) as any }
    }
    const invoke = (skill: string, input: object, conversationId?: string) =>
      call(keys.helper, `/api/skills/${skill}/invoke`, { body: { input, ...(conversationId && { conversationId }) } })
    return { keys, call, invoke }
  }

  it('approves for the conversation, lists the grant to approvers, runs covered calls and stops when the granter revokes it', async () => {
    const { keys, call, invoke } = await start()
    const asked = await invoke('write_thing', { value: 'one' }, 'chat-1')
    expect(asked.status).toBe(202)
    const id = asked.body.error.details.approvalId
    const approve = (key: string, body: object) => call(key, `/api/approvals/${id}/approve`, { body })

    // Viewers and agent keys grant nothing; bad scopes and lifetimes are named.
    expect(await approve(keys.viewer, { scope: 'conversation' })).toMatchObject({ status: 403 })
    expect(await approve(keys.helper, { scope: 'conversation' })).toMatchObject({
      status: 403,
      body: { error: { code: 'denied', message: 'agent keys cannot decide approvals: a human must' } },
    })
    expect(await approve(keys.operator, { scope: 'forever' })).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_input', message: 'invalid request body: scope: must be one of once, conversation, always' } },
    })
    for (const minutes of [0, 1441, '30']) {
      expect(await approve(keys.operator, { scope: 'conversation', minutes })).toMatchObject({
        status: 400,
        body: { error: { message: 'invalid request body: minutes: must be a whole number of minutes from 1 to 1440 (24 h)' } },
      })
    }
    expect(await approve(keys.operator, { minutes: 5 })).toMatchObject({
      status: 400,
      body: { error: { message: 'minutes applies to scope conversation only' } },
    })
    expect(await call(keys.operator, `/api/approvals/${id}/reject`, { body: { scope: 'conversation' } })).toMatchObject({
      status: 400,
      body: {
        error: {
          message: 'invalid request body: unknown field "scope" (a rejection is for this request only: scope and minutes apply to approve)',
        },
      },
    })

    const approved = await approve(keys.operator, { scope: 'conversation', minutes: 10, comment: 'for this chat' })
    expect(approved).toMatchObject({
      status: 200,
      body: {
        id,
        status: 'approved',
        grant: { approvalId: id, skill: 'write_thing', agent: 'helper', conversationId: 'chat-1', grantedBy: { name: 'oscar' } },
      },
    })
    const grant = approved.body.grant
    expect(Date.parse(grant.expiresAt) - Date.parse(grant.createdAt)).toBe(10 * 60_000)

    const covered = await invoke('write_thing', { value: 'two' }, 'chat-1')
    expect(covered).toMatchObject({ status: 200, body: { ok: true, data: { stored: 'two' } } })
    expect(await call(keys.operator, `/api/audit/${covered.body.callId}`)).toMatchObject({ status: 200, body: { grantId: grant.id, approvalId: null } })
    expect(await invoke('write_thing', { value: 'two' }, 'chat-2')).toMatchObject({ status: 202 })

    expect(await call(keys.operator, '/api/approvals/grants?status=active')).toMatchObject({
      status: 200,
      body: { items: [{ id: grant.id }], nextCursor: null },
    })
    expect(await call(keys.operator, '/api/approvals/grants?agent=Helper&skill=write_thing')).toMatchObject({ body: { items: [{ id: grant.id }] } })
    expect(await call(keys.operator, '/api/approvals/grants?status=lost')).toMatchObject({ status: 400 })
    for (const key of [keys.viewer, keys.helper]) expect(await call(key, '/api/approvals/grants')).toMatchObject({ status: 403 })

    const revoke = (key: string) => call(key, `/api/approvals/grants/${grant.id}`, { method: 'DELETE' })
    expect(await revoke(keys.operator2)).toMatchObject({
      status: 403,
      body: { error: { message: `only oscar, who granted it, or an admin may revoke grant ${grant.id}` } },
    })
    expect(await revoke(keys.operator)).toMatchObject({ status: 200, body: { id: grant.id, status: 'revoked', revokedBy: { name: 'oscar' } } })
    expect(await revoke(keys.admin)).toMatchObject({ status: 409 })
    expect(await call(keys.admin, '/api/approvals/grants/01NOSUCHGRANT0000000000000', { method: 'DELETE' })).toMatchObject({ status: 404 })
    expect(await invoke('write_thing', { value: 'three' }, 'chat-1')).toMatchObject({ status: 202 })

    // The request's history shows the grant made and revoked.
    const history = (await call(keys.operator, `/api/approvals/${id}`)).body.history.map((e: { kind: string }) => e.kind)
    expect(history).toEqual(['approval.created', 'approval.approval', 'approval.grant_created', 'approval.approved', 'approval.grant_revoked'])
  })

  it('approves always as an admin with an ALWAYS override, and refuses any scope but once for a dangerous request', async () => {
    const { keys, call, invoke } = await start()
    const id = (await invoke('write_thing', { value: 'one' })).body.error.details.approvalId
    expect(await call(keys.operator, `/api/approvals/${id}/approve`, { body: { scope: 'always' } })).toMatchObject({ status: 403 })
    const approved = await call(keys.admin, `/api/approvals/${id}/approve`, { body: { scope: 'always' } })
    expect(approved).toMatchObject({
      status: 200,
      body: { status: 'approved', policy: { skill: 'write_thing', level: 'agent', subject: 'helper', decision: 'ALWAYS' } },
    })
    expect((await call(keys.admin, '/api/policies')).body).toMatchObject({ policies: [{ id: approved.body.policy.id, createdBy: 'alice' }] })
    expect(await invoke('write_thing', { value: 'anything' })).toMatchObject({ status: 200 })

    const wipe = (await invoke('wipe_things', { count: 1 }, 'chat-1')).body.error.details.approvalId
    expect(await call(keys.admin, `/api/approvals/${wipe}/approve`, { body: { scope: 'conversation' } })).toMatchObject({
      status: 403,
      body: {
        error: { code: 'denied', message: 'scope conversation is for mutating skills only: a dangerous call of "wipe_things" is approved once, call by call' },
      },
    })
  })
})
