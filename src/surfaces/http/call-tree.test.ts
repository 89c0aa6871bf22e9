import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { databases } from '../../test-support/databases.js'
import { admin, agentCaller, openTestPlane, operator, testAgents, testSkills } from '../../test-support/fixtures.js'
import { callsTool, says, scripted } from '../../test-support/mock-model.js'
import { waitFor } from '../../test-support/databases.js'
import { defineSkill } from '../../skill/index.js'
import type { Skillplane } from '../../agents/index.js'
import type { KeyRole } from '../../accounts/index.js'
import { startHttpServer, type HttpServer } from './start-http-server.js'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'

const leaf = defineSkill({ key: 'leaf', description: 'A leaf', class: 'safe', input: z.object({ n: z.number() }), run: ({ n }) => ({ n }) })
const middle = defineSkill({
  key: 'middle',
  description: 'Calls leaf twice',
  class: 'safe',
  input: z.object({ n: z.number() }),
  run: async ({ n }, ctx) => {
    await ctx.invoke('leaf', { n: n * 10 + 1 })
    await ctx.invoke('leaf', { n: n * 10 + 2 })
    return { n }
  },
})
const outer = defineSkill({
  key: 'outer',
  description: 'Calls middle twice',
  class: 'safe',
  run: async (_input, ctx) => {
    await ctx.invoke('middle', { n: 1 })
    await ctx.invoke('middle', { n: 2 })
    return {}
  },
})
const fan = defineSkill({
  key: 'fan',
  description: 'Calls leaf many times',
  class: 'safe',
  input: z.object({ count: z.number() }),
  run: async ({ count }, ctx) => {
    for (let n = 0; n < count; n++) await ctx.invoke('leaf', { n })
    return {}
  },
})

// When each waiting write's executor started: after its approval's decision, inside its call.
const workStarted: number[] = []
const waitedWrite = defineSkill({
  key: 'waited_write',
  description: 'A mutating skill that notes when it starts working',
  class: 'mutating',
  agents: ['helper'],
  input: z.object({ value: z.string() }),
  run: ({ value }) => {
    workStarted.push(Date.now())
    return { stored: value }
  },
})

describe.each(databases)('call trees over HTTP on $name', (database) => {
  let plane: Skillplane | undefined
  let server: HttpServer | undefined
  afterEach(async () => {
    await server?.close()
    await plane?.close()
  })

  const open = async (config: Parameters<typeof openTestPlane>[1] = {}) => {
    plane = await openTestPlane(database, { skills: [...testSkills(), leaf, middle, outer, fan, waitedWrite], ...config })
    server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    const key = (await plane.people.keys.create({ name: 'oscar', role: 'operator' }, plane.now())).key
    const get = async (path: string, as = key) => {
      const response = await fetch(`${server!.url}${path}`, { headers: { authorization: `Bearer ${as}` } })
      return { status: response.status, body: (await response.json()) as any }
    }
    const keyFor = async (role: KeyRole, agentId?: string) =>
      (await plane!.people.keys.create({ name: `${role}-${agentId ?? 'x'}`, role, agentId }, plane!.now())).key
    return { plane, get, keyFor }
  }

  it('shows nested ctx.invoke calls as one tree from any of its calls, parent before children, siblings by start', async () => {
    const { plane, get } = await open()
    const envelope = await plane.invoke('outer', {}, { caller: admin })
    expect(envelope.ok).toBe(true)
    const calls = (await plane.audit.query({ limit: 10 })).items
    const deepest = calls.find((c) => c.skill === 'leaf')!
    const { status, body } = await get(`/api/audit/${deepest.callId}/tree`)
    expect(status).toBe(200)
    expect(body.rootId).toBe(`call:${envelope.callId}`)
    expect(body.truncated).toBe(false)
    const names = body.spans.map((s: any) => s.name)
    expect(names).toEqual(['outer', 'middle', 'leaf', 'leaf', 'middle', 'leaf', 'leaf'])
    const byId = new Map(body.spans.map((s: any) => [s.id, s]))
    for (const span of body.spans.slice(1)) {
      const parent: any = byId.get(span.parentId)
      expect(parent.callId).toBe(calls.find((c) => c.callId === span.callId)!.parentCallId)
      expect(span.startedAt >= parent.startedAt).toBe(true)
    }
    expect(body.spans.every((s: any) => s.kind === 'call' && s.status === 'ok' && s.endedAt !== null)).toBe(true)
    expect(body.startedAt).toBe(body.spans[0].startedAt)
    // Any call of the tree answers the same tree.
    expect((await get(`/api/audit/${envelope.callId}/tree`)).body).toEqual(body)
  })

  it('answers 404 for an unknown call or run', async () => {
    const { get } = await open()
    const call = await get('/api/audit/01JUNKNOWNCALL0000000000000/tree')
    expect(call.status).toBe(404)
    expect(call.body.error.code).toBe('not_found')
    expect((await get('/api/runs/nope/tree')).status).toBe(404)
  })

  it("keeps a call that only names a run's conversation out of the run's tree", async () => {
    const { plane, get } = await open({ agents: [{ ...testAgents![0]!, model: scripted(callsTool('echo', { message: 'mine' }), says('done')) }] })
    const run = await plane.runs.start({ agent: 'helper', prompt: 'echo', requester: admin })
    // Anyone may name a conversation, that of a run included: even acting for its agent.
    const planted = await plane.invoke('echo', { message: 'planted' }, { caller: operator, conversationId: `run:${run.id}`, agent: 'helper' })
    expect(planted.ok).toBe(true)
    await waitFor(async () => (await get(`/api/audit/${planted.callId}`)).status === 200)
    const tree = (await get(`/api/runs/${run.id}/tree`)).body
    const calls = tree.spans.filter((span: { kind: string }) => span.kind === 'call')
    expect(calls).toHaveLength(1)
    expect(calls[0].callId).not.toBe(planted.callId)
    // The planted call's own tree is itself, not the run.
    expect((await get(`/api/audit/${planted.callId}/tree`)).body).toMatchObject({ rootId: `call:${planted.callId}`, spans: [{ callId: planted.callId }] })
  })

  it('caps a tree at 2,000 spans and says it was cut', async () => {
    const { plane, get } = await open()
    const envelope = await plane.invoke('fan', { count: 2_005 }, { caller: admin })
    expect(envelope.ok).toBe(true)
    const { body } = await get(`/api/audit/${envelope.callId}/tree`)
    expect(body.truncated).toBe(true)
    expect(body.spans).toHaveLength(2_000)
    expect(body.spans[0].name).toBe('fan')
    const small = await plane.invoke('fan', { count: 3 }, { caller: admin })
    expect((await get(`/api/audit/${small.callId}/tree`)).body).toMatchObject({ truncated: false, spans: [{}, {}, {}, {}] })
  }, 120_000)

  it("shows an agent run's model steps, tool calls and approval pause: the approval span lies between the request and the decision", async () => {
    const model = scripted(callsTool('parent_call', {}), callsTool('write_thing', { value: 'v' }, 'c2'), says('done'))
    const { plane, get, keyFor } = await open({ agents: [{ ...testAgents![0]!, model }, testAgents![1]!] })
    const paused = await plane.runs.start({ agent: 'helper', prompt: 'x', requester: operator })
    expect(paused.status).toBe('awaiting_approval')
    const approvalId = paused.pending[0]!.approvalId!
    // Pending: the approval span is open.
    const before = await get(`/api/runs/${paused.id}/tree`)
    expect(before.body.spans.find((s: any) => s.kind === 'approval')).toMatchObject({ approvalId, status: 'pending', endedAt: null })
    expect(before.body.endedAt).toBeNull()
    await plane.approvals.decide({ id: approvalId, caller: admin, decision: 'approve' })
    await waitFor(async () => (await plane.runs.get(paused.id))!.status === 'completed')
    const run = (await plane.runs.get(paused.id))!

    const { status, body } = await get(`/api/runs/${run.id}/tree`)
    expect(status).toBe(200)
    expect(body.rootId).toBe(`run:${run.id}`)
    // Its three model steps hang from the run, with their model and tokens; the rest is its calls.
    const models = body.spans.filter((s: any) => s.kind === 'model')
    expect(models).toHaveLength(3)
    for (const step of models) {
      expect(step).toMatchObject({ parentId: `run:${run.id}`, name: 'mock-model-id', status: 'ok', runId: run.id, usage: { inputTokens: 1, outputTokens: 1 } })
      expect(step.endedAt >= step.startedAt).toBe(true)
    }
    expect(models.map((s: any) => s.stepIndex)).toEqual([...models.map((s: any) => s.stepIndex)].sort((a, b) => a - b))
    const calls = body.spans.filter((s: any) => s.kind !== 'model')
    const shape = calls.map((s: any) => [s.kind, s.name, s.status])
    expect(shape).toEqual([
      ['run', 'helper', 'completed'],
      ['call', 'parent_call', 'ok'],
      ['call', 'echo', 'ok'],
      ['call', 'write_thing', 'approval_required'],
      ['approval', 'write_thing', 'executed'],
      ['call', 'write_thing', 'ok'],
    ])
    const [runSpan, parentCall, child, refused, approval, executed] = calls
    expect(parentCall.parentId).toBe(runSpan.id)
    expect(child.parentId).toBe(parentCall.id)
    expect(refused.parentId).toBe(runSpan.id)
    expect(approval.parentId).toBe(refused.id)
    expect(executed.parentId).toBe(approval.id)
    const decided = (await plane.approvals.get(approvalId))!
    expect(approval).toMatchObject({ approvalId, startedAt: decided.createdAt, endedAt: decided.decidedAt })
    expect(refused.startedAt <= approval.startedAt && approval.endedAt <= executed.startedAt).toBe(true)
    expect(body.endedAt).toBe(runSpan.endedAt)

    // From any of its calls, the same tree: the run is the root.
    expect((await get(`/api/audit/${executed.callId}/tree`)).body).toEqual(body)
    expect((await get(`/api/audit/${child.callId}/tree`)).body).toEqual(body)

    // The run's own agent key reads the run, so its steps' calls and approval, and no other call.
    const agentView = await get(`/api/runs/${run.id}/tree`, await keyFor('agent', 'helper'))
    expect(agentView.status).toBe(200)
    const agentCalls = agentView.body.spans.filter((s: any) => s.kind !== 'model')
    expect(agentCalls.map((s: any) => s.name)).toEqual(['helper', 'parent_call', 'hidden', 'write_thing', 'write_thing', 'write_thing'])
    const hidden = agentCalls[2]
    expect(hidden).toEqual({
      id: expect.stringMatching(/^hidden:/),
      parentId: parentCall.id,
      kind: 'call',
      name: 'hidden',
      startedAt: child.startedAt,
      endedAt: child.endedAt,
      status: 'ok',
    })
    expect(JSON.stringify(agentView.body)).not.toContain(child.callId)
    // A call that says over MCP it was made by one of the run's calls joins the tree, and shows the
    // agent key nothing more: the link is a claim, not a right to see.
    const mcp = new Client({ name: 'claimer', version: '1.0.0' })
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${server!.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${await keyFor('admin')}` } } }),
    )
    try {
      await mcp.callTool({ name: 'echo', arguments: { message: 'claimed' }, _meta: { 'skillplane/callId': parentCall.callId } })
    } finally {
      await mcp.close()
    }
    const claimed = (await get(`/api/runs/${run.id}/tree`)).body.spans.find((s: any) => s.parentId === parentCall.id && s.callId !== child.callId)
    expect(claimed).toMatchObject({ kind: 'call', name: 'echo' })
    const agentAgain = (await get(`/api/runs/${run.id}/tree`, await keyFor('agent', 'helper'))).body
    expect(agentAgain.spans.filter((s: any) => s.parentId === parentCall.id).map((s: any) => s.name)).toEqual(['hidden', 'hidden'])
    expect(JSON.stringify(agentAgain)).not.toContain(claimed.callId)
    // Another agent's key, and a viewer, are refused as GET /api/runs/{id} refuses them.
    expect((await get(`/api/runs/${run.id}/tree`, await keyFor('agent', 'other'))).status).toBe(404)
    expect((await get(`/api/runs/${run.id}/tree`, await keyFor('viewer'))).status).toBe(403)
    expect((await get(`/api/audit/${executed.callId}/tree`, await keyFor('agent', 'helper'))).status).toBe(403)
  })

  it('puts a wait-mode approval inside the call that waited, so its working time is its duration less the wait', async () => {
    const { plane, get } = await open()
    workStarted.length = 0
    const waiting = plane.invoke('waited_write', { value: 'input-only-4242' }, { caller: agentCaller('helper'), approval: { mode: 'ask', wait: 60 } })
    let approvalId = ''
    await waitFor(async () => {
      const pending = (await plane.approvals.list({ status: 'pending', limit: 10 })).items
      approvalId = pending.find((a) => a.skill === 'waited_write')?.id ?? ''
      return approvalId !== ''
    })
    await plane.approvals.decide({ id: approvalId, caller: admin, decision: 'approve' })
    const envelope = await waiting
    expect(envelope.ok).toBe(true)

    const { body } = await get(`/api/audit/${envelope.callId}/tree`)
    // A tree names calls and times them: inputs and results stay on the call's own page.
    expect(JSON.stringify(body)).not.toContain('input-only-4242')
    expect(body.spans.map((s: any) => [s.kind, s.status])).toEqual([
      ['call', 'ok'],
      ['approval', 'executed'],
    ])
    const [call, wait] = body.spans
    expect(wait.parentId).toBe(call.id)
    const ms = (iso: string) => Date.parse(iso)
    // The wait lies inside the call, and the work starts once it is over.
    expect(ms(call.startedAt) <= ms(wait.startedAt) && ms(wait.endedAt) <= ms(call.endedAt)).toBe(true)
    expect(workStarted).toHaveLength(1)
    expect(workStarted[0]!).toBeGreaterThanOrEqual(ms(wait.endedAt))
    const duration = ms(call.endedAt) - ms(call.startedAt)
    const waited = ms(wait.endedAt) - ms(wait.startedAt)
    const working = duration - waited
    expect(working).toBeGreaterThanOrEqual(ms(call.endedAt) - workStarted[0]!)
    expect(working).toBeLessThan(duration)
    expect((await plane.audit.get(envelope.callId))!.durationMs).toBe(duration)
  })
})
