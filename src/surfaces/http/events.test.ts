import { afterEach, describe, expect, it } from 'vitest'
import { databases, waitFor } from '../../test-support/databases.js'
import { agentCaller, approvalIdOf, openTestPlane, operator } from '../../test-support/fixtures.js'
import type { Skillplane } from '../../agents/index.js'
import { startHttpServer, type HttpServer } from './start-http-server.js'
import { listenSse } from '../../test-support/listen-sse.js'

/** What an `/api/events` event carries. */
interface ApprovalEvent {
  kind: string
  approval: { id: string; status: string; skill: string; requester: { id: string } }
}

/** A live `/api/events` stream: what it has received so far, parsed. */
const listen = (url: string, key: string, lastEventId?: string) => listenSse<ApprovalEvent>(`${url}/api/events`, key, lastEventId)

describe.each(databases)('the /api/events stream on $name', (database) => {
  const planes: Skillplane[] = []
  const servers: HttpServer[] = []
  const streams: Array<{ close(): Promise<void> }> = []
  afterEach(async () => {
    await Promise.all(streams.splice(0).map((s) => s.close()))
    await Promise.all(servers.splice(0).map((s) => s.close()))
    await Promise.all(planes.splice(0).map((p) => p.close()))
  })

  it('tells each caller of the approval requests it may see as they are created and decided, on any manager, and resumes after Last-Event-ID', async () => {
    const location = await database.create()
    const here = await openTestPlane(database, {}, location)
    const there = await openTestPlane(database, {}, location)
    planes.push(here, there)
    const server = await startHttpServer(here, { host: '127.0.0.1', port: 0 })
    servers.push(server)
    const key = async (name: string, role: 'viewer' | 'operator' | 'agent', agentId?: string) =>
      (await here.people.keys.create({ name, role, ...(agentId && { agentId }) }, here.now())).key
    const helper = here.agents.resolve('Helper')!
    const other = here.agents.resolve('Other')!
    const operatorKey = await key('oscar', 'operator')
    const approver = await listen(server.url, operatorKey)
    const helperKey = await key('helper-bot', 'agent', helper)
    const helperStream = await listen(server.url, helperKey)
    const otherStream = await listen(server.url, await key('other-bot', 'agent', other))
    const viewerStream = await listen(server.url, await key('vera', 'viewer'))
    streams.push(approver, helperStream, otherStream, viewerStream)

    // Filed on the other manager: this one hears of it through the database.
    const thereServer = await startHttpServer(there, { host: '127.0.0.1', port: 0 })
    servers.push(thereServer)
    const response = await fetch(`${thereServer.url}/api/skills/write_thing/invoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${helperKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ input: { value: 'x' } }),
    })
    const asked = (await response.json()) as { ok: boolean; error: { code: string; details: { approvalId: string } } }
    expect(asked).toMatchObject({ ok: false, error: { code: 'approval_required' } })
    const approvalId = asked.error.details.approvalId
    await waitFor(() => approver.kinds().includes('approval.created'))
    expect(approver.received[0]!.data.approval).toMatchObject({ id: approvalId, status: 'pending', skill: 'write_thing' })

    const decided = await fetch(`${server.url}/api/approvals/${approvalId}/approve`, {
      method: 'POST',
      headers: { authorization: `Bearer ${operatorKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ comment: 'fine' }),
    })
    expect(decided.status).toBe(200)
    await waitFor(() => approver.kinds().includes('approval.approved'))
    expect(approver.kinds()).toEqual(['approval.created', 'approval.approval', 'approval.approved'])
    expect(approver.received.at(-1)!.data.approval.status).toBe('approved')
    // The requester sees its own request; another agent and a viewer see nothing of it.
    await waitFor(() => helperStream.kinds().length === 3)
    expect(helperStream.kinds()).toEqual(approver.kinds())
    expect(otherStream.received).toEqual([])
    expect(viewerStream.received).toEqual([])

    // A client back after a drop says what it saw last and gets what came after, then what is new.
    const resumed = await listen(server.url, operatorKey, approver.received[0]!.id)
    streams.push(resumed)
    await waitFor(() => resumed.received.length === 2)
    expect(resumed.kinds()).toEqual(['approval.approval', 'approval.approved'])
  })

  it('tells approvers of conversation grants made and revoked, with the grant', async () => {
    const plane = await openTestPlane(database)
    planes.push(plane)
    const server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    servers.push(server)
    const operatorKey = (await plane.people.keys.create({ name: 'oscar', role: 'operator' }, plane.now())).key
    const approver = await listen(server.url, operatorKey)
    streams.push(approver)
    const asked = await plane.invoke('write_thing', { value: 'x' }, { caller: agentCaller('helper'), conversationId: 'chat-1' })
    const decided = await plane.approvals.decide({ id: approvalIdOf(asked), caller: operator, decision: 'approve', scope: 'conversation' })
    const grant = decided.ok && decided.granted?.scope === 'conversation' ? decided.granted.grant : undefined
    await plane.approvals.grants.revoke(grant!.id, operator)
    await waitFor(() => approver.kinds().includes('approval.grant_revoked'))
    expect(approver.kinds()).toEqual(['approval.created', 'approval.approval', 'approval.grant_created', 'approval.approved', 'approval.grant_revoked'])
    // The grant commits with the decision that approves: the request is approved when either event is read.
    expect([approver.received[2], approver.received[4]].map((r) => r!.data)).toMatchObject([
      { scope: 'conversation', grant: { id: grant!.id, status: 'active' }, approval: { status: 'approved' } },
      { grant: { id: grant!.id, status: 'revoked' } },
    ])
  })

  it('refuses a stream without a valid key', async () => {
    const plane = await openTestPlane(database)
    planes.push(plane)
    const server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    servers.push(server)
    expect((await fetch(`${server.url}/api/events`)).status).toBe(401)
    expect((await fetch(`${server.url}/api/events`, { headers: { authorization: 'Bearer sp_nope' } })).status).toBe(401)
  })
})
