import { afterEach, describe, expect, it } from 'vitest'
import { databases, waitFor } from '../../test-support/databases.js'
import { admin, agentCaller, openTestPlane, operator, testAgents } from '../../test-support/fixtures.js'
import { callsTool, says, scripted } from '../../test-support/mock-model.js'
import type { Skillplane } from '../../agents/index.js'
import type { Caller } from '../../skill/index.js'
import { startHttpServer, type HttpServer } from './start-http-server.js'

describe.each(databases)('audit export and conversations over HTTP on $name', (database) => {
  let plane: Skillplane | undefined
  let server: HttpServer | undefined
  afterEach(async () => {
    await server?.close()
    await plane?.close()
  })

  const open = async (config: Parameters<typeof openTestPlane>[1] = {}) => {
    plane = await openTestPlane(database, config)
    server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    const key = (await plane.people.keys.create({ name: 'oscar', role: 'operator' }, plane.now())).key
    const get = (path: string, as = key) => fetch(`${server!.url}${path}`, { headers: { authorization: `Bearer ${as}` } })
    return { key, get }
  }

  it('streams an export larger than a page complete and in the list order, as JSON lines or CSV, with q and the other filters', async () => {
    const { get } = await open()
    for (let i = 0; i < 1_203; i += 100) {
      await Promise.all(Array.from({ length: Math.min(100, 1_203 - i) }, (_, j) => plane!.invoke('echo', { message: `m${i + j}` }, { caller: admin })))
    }
    const evil: Caller = { kind: 'user', id: '=HYPERLINK("x")', name: '@evil, "inc"', role: 'admin' }
    await plane!.invoke('explode', {}, { caller: evil })
    await plane!.invoke('explode', {}, { caller: admin })

    // The whole list, page by page, is what the export writes.
    const listed: unknown[] = []
    let cursor = ''
    do {
      const page = (await (await get(`/api/audit?limit=500${cursor && `&cursor=${cursor}`}`)).json()) as { items: unknown[]; nextCursor: string | null }
      listed.push(...page.items)
      cursor = page.nextCursor ?? ''
    } while (cursor)
    expect(listed).toHaveLength(1_205)
    const jsonl = await get('/api/audit/export?format=jsonl')
    expect(jsonl.status).toBe(200)
    expect(jsonl.headers.get('content-type')).toBe('application/x-ndjson')
    expect(jsonl.headers.get('content-disposition')).toMatch(/^attachment; filename="audit-.*\.jsonl"$/)
    expect(jsonl.headers.get('skillplane-export-limit')).toBe('100000')
    const lines = (await jsonl.text()).split('\n')
    expect(lines.pop()).toBe('')
    expect(lines.map((line) => JSON.parse(line))).toEqual(listed)
    // A cap stops it.
    expect((await (await get('/api/audit/export?limit=501')).text()).trimEnd().split('\n')).toHaveLength(501)

    // CSV of a search with a status: the header, then the matching calls, cells quoted and defused.
    const csv = await get('/api/audit/export?format=csv&q=fire&status=error')
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8')
    const records = (await csv.text()).split('\r\n')
    expect(records[0]).toMatch(/^callId,startedAt,finishedAt,durationMs,status,skill,callerId,callerName,/)
    expect(records).toHaveLength(4)
    expect(records[3]).toBe('')
    expect(records[1]).toContain(',error,explode,u-admin,alice,')
    expect(records[2]).toContain(`,error,explode,"'=HYPERLINK(""x"")","'@evil, ""inc""",`)
    expect((await (await get('/api/audit/export?format=csv&q=fire&status=ok')).text()).split('\r\n')).toHaveLength(2)
  })

  it('never finds or exports a secret the audit redacted', async () => {
    const { get } = await open()
    await plane!.invoke('leaky', { passphrase: 'correcthorse battery', fail: true }, { caller: admin })
    await plane!.invoke('leaky', { passphrase: 'correcthorse battery' }, { caller: admin })
    expect(((await (await get('/api/audit?q=rejected')).json()) as any).items).toHaveLength(1)
    for (const q of ['correcthorse', 'battery', 'correcthorse battery']) expect(((await (await get(`/api/audit?q=${q}`)).json()) as any).items).toEqual([])
    for (const format of ['jsonl', 'csv']) {
      const text = await (await get(`/api/audit/export?format=${format}`)).text()
      expect(text).toContain('[REDACTED]')
      expect(text).not.toContain('correcthorse')
    }
  })

  it('refuses bad parameters with a 400 naming the parameter, and keeps export apart from call ids', async () => {
    const { get } = await open()
    const failure = async (path: string) => {
      const response = await get(path)
      return { status: response.status, message: ((await response.json()) as { error: { message: string } }).error.message }
    }
    expect(await failure('/api/audit/export?format=xml')).toEqual({ status: 400, message: 'invalid audit export query: format: must be jsonl or csv' })
    expect(await failure('/api/audit/export?q=')).toEqual({ status: 400, message: 'invalid audit export query: q: must contain a letter or digit' })
    expect(await failure('/api/audit?q=')).toEqual({ status: 400, message: 'invalid audit query: q: must contain a letter or digit' })
    expect(await failure('/api/audit?q=%20-!')).toEqual({ status: 400, message: 'invalid audit query: q: must contain a letter or digit' })
    expect((await failure('/api/audit/export?limit=0')).message).toMatch(/^invalid audit export query: limit: /)
    expect(await failure('/api/audit/export?cursor=x')).toEqual({ status: 400, message: 'invalid audit export query: unknown filter cursor' })
    expect(await failure('/api/audit/export-x')).toEqual({ status: 404, message: 'no call with id "export-x"' })
    expect((await get('/api/audit/export')).status).toBe(200)
    // A viewer reads no calls, so exports none either.
    const viewerKey = (await plane!.people.keys.create({ name: 'vera', role: 'viewer' }, plane!.now())).key
    expect((await get('/api/audit/export', viewerKey)).status).toBe(403)
    expect((await get('/api/conversations/c1', viewerKey)).status).toBe(403)
  })

  it("shows a conversation's calls oldest first with its approval requests", async () => {
    const { get } = await open()
    await plane!.invoke('echo', { message: 'first' }, { caller: admin, conversationId: 'c1' })
    await plane!.invoke('echo', { message: 'elsewhere' }, { caller: admin, conversationId: 'c2' })
    const asked = await plane!.invoke('write_thing', { value: 'v' }, { caller: agentCaller('helper'), agent: 'helper', conversationId: 'c1' })
    expect(asked).toMatchObject({ ok: false, error: { code: 'approval_required' } })
    await plane!.invoke('explode', {}, { caller: admin, conversationId: 'c1' })

    const response = await get('/api/conversations/c1')
    expect(response.status).toBe(200)
    const conversation = (await response.json()) as any
    expect(conversation.id).toBe('c1')
    expect(conversation.calls.map((c: any) => [c.skill, c.status])).toEqual([
      ['echo', 'ok'],
      ['write_thing', 'approval_required'],
      ['explode', 'error'],
    ])
    expect(conversation.approvals).toHaveLength(1)
    expect(conversation.approvals[0]).toMatchObject({ skill: 'write_thing', status: 'pending', callId: conversation.calls[1].callId })
    expect(conversation.run).toBeNull()
    expect(conversation.truncated).toBe(false)
    // The audit list takes the conversation as a filter, newest first.
    const listed = (await (await get('/api/audit?conversationId=c1')).json()) as any
    expect(listed.items.map((c: any) => c.skill)).toEqual(['explode', 'write_thing', 'echo'])
    expect(((await (await get('/api/audit?conversationId=c1&q=fire')).json()) as any).items.map((c: any) => c.skill)).toEqual(['explode'])
    expect((await get('/api/conversations/nothing-here')).status).toBe(404)
    expect((await get('/api/conversations/run:nothing')).status).toBe(404)
  })

  it("shows an agent run's conversation with its approval and the run itself", async () => {
    const model = scripted(callsTool('write_thing', { value: 'v1' }), says('stored v1'))
    const { get } = await open({ agents: [{ ...testAgents![0]!, model }, testAgents![1]!] })
    const paused = await plane!.runs.start({ agent: 'helper', prompt: 'store v1', requester: operator })
    await plane!.approvals.decide({ id: paused.pending[0]!.approvalId!, caller: admin, decision: 'approve' })
    await waitFor(async () => (await plane!.runs.get(paused.id))!.status === 'completed')
    await waitFor(async () => (await plane!.audit.query({ conversationId: `run:${paused.id}`, status: 'ok', limit: 1 })).items.length === 1)
    const conversation = (await (await get(`/api/conversations/run:${paused.id}`)).json()) as any
    expect(conversation.calls.map((c: any) => [c.skill, c.status])).toEqual([
      ['write_thing', 'approval_required'],
      ['write_thing', 'ok'],
    ])
    expect(conversation.approvals.map((a: any) => [a.skill, a.status, a.executedCallId])).toEqual([['write_thing', 'executed', conversation.calls[1].callId]])
    expect(conversation.run).toMatchObject({ id: paused.id, agent: 'helper', status: 'completed', output: 'stored v1' })
  })
})
