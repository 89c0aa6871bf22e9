import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { context, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { databases, waitFor } from '../test-support/databases.js'
import { admin, agentCaller, approvalIdOf, openTestPlane, operator, testAgents, testSkills } from '../test-support/fixtures.js'
import { freePort } from '../test-support/free-port.js'
import { callsTool, says, scripted } from '../test-support/mock-model.js'
import type { Skillplane } from '../agents/index.js'
import { startHttpServer } from '../surfaces/http/start-http-server.js'

// The API hands out proxy tracers that keep the SDK once they met one: the untraced case runs first.
describe('without an OpenTelemetry SDK', () => {
  it('audits no trace id', async () => {
    const plane = await openTestPlane(databases[0]!)
    try {
      const untraced = await plane.invoke('echo', { message: 'before' }, { caller: admin })
      expect(await plane.audit.get(untraced.callId)).toMatchObject({ traceId: null })
    } finally {
      await plane.close()
    }
  })
})

// One provider for the file, for the same reason, registered once the untraced case has run.
const exporter = new InMemorySpanExporter()
let registered = false
afterAll(() => {
  trace.disable()
  context.disable()
})

describe.each(databases)('tracing on $name', (database) => {
  let plane: Skillplane | undefined
  beforeAll(() => {
    if (registered) return
    registered = true
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }))
  })
  afterEach(async () => {
    await plane?.close()
    exporter.reset()
  })

  it('keeps the calls of an agent run in its trace, across a pause for approval, with a span for each model step', async () => {
    const model = scripted(
      callsTool('echo', { message: 'a' }, 'c1', { input: 11, output: 3 }),
      callsTool('write_thing', { value: 'v' }, 'c2', { input: 21, output: 4 }),
      says('done', { input: 31, output: 5 }),
    )
    plane = await openTestPlane(database, { agents: [{ ...testAgents![0]!, model }] })
    const paused = await plane.runs.start({ agent: 'helper', prompt: 'x', requester: operator })
    await plane.approvals.decide({ id: paused.pending[0]!.approvalId!, caller: admin, decision: 'approve' })
    await waitFor(async () => (await plane!.runs.get(paused.id))!.status === 'completed')
    const run = (await plane.runs.get(paused.id))!
    expect(run.traceId).toMatch(/^[0-9a-f]{32}$/)
    const { items } = await plane.audit.query({ traceId: run.traceId!, limit: 10 })
    expect(items.map((r) => [r.skill, r.status])).toEqual([
      ['echo', 'ok'],
      ['write_thing', 'approval_required'],
      ['write_thing', 'ok'],
    ])
    // Each model call is a span of the run's trace, under the run, with the model and its usage (gen_ai conventions).
    const steps = exporter.getFinishedSpans().filter((s) => s.name === 'model step')
    expect(
      steps.map((s) => [s.attributes['gen_ai.request.model'], s.attributes['gen_ai.usage.input_tokens'], s.attributes['gen_ai.usage.output_tokens']]),
    ).toEqual([
      ['mock-model-id', 11, 3],
      ['mock-model-id', 21, 4],
      ['mock-model-id', 31, 5],
    ])
    const runSpans = new Set(
      exporter
        .getFinishedSpans()
        .filter((s) => s.name.startsWith('agent run'))
        .map((s) => s.spanContext().spanId),
    )
    for (const step of steps) {
      expect(step.spanContext().traceId).toBe(run.traceId)
      expect(runSpans.has(step.parentSpanContext?.spanId ?? '')).toBe(true)
    }
  })

  it('makes every call a span and audits its trace id; a trace reads back in call order', async () => {
    plane = await openTestPlane(database)
    const tracer = trace.getTracer('test')
    const traceId = await tracer.startActiveSpan('agent run', async (root) => {
      await plane!.invoke('parent_call', {}, { caller: admin })
      await plane!.invoke('echo', { message: '' }, { caller: admin })
      root.end()
      return root.spanContext().traceId
    })
    await plane.invoke('echo', { message: 'another trace' }, { caller: admin })

    const { items } = await plane.audit.query({ traceId, limit: 10 })
    expect(items.map((r) => [r.skill, r.status])).toEqual([
      ['parent_call', 'ok'],
      ['echo', 'ok'],
      ['echo', 'error'],
    ])
    // The nested call's span is a child of its parent call's span, which is a child of the run.
    const spans = exporter.getFinishedSpans()
    const byName = (name: string) => spans.filter((s) => s.name === name)
    const root = byName('agent run')[0]!
    const parent = byName('skill parent_call')[0]!
    expect(parent.parentSpanContext?.spanId).toBe(root.spanContext().spanId)
    const nested = byName('skill echo').find((s) => s.parentSpanContext?.spanId === parent.spanContext().spanId)
    expect(nested?.attributes).toMatchObject({ 'skillplane.skill': 'echo', 'skillplane.class': 'safe', 'skillplane.call_id': items[1]!.callId })
    expect(byName('skill echo').find((s) => s.attributes['skillplane.call_id'] === items[2]!.callId)?.status).toMatchObject({
      code: 2,
      message: 'invalid_input',
    })

    const server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    try {
      const { key } = await plane.people.keys.create({ name: 'root', role: 'admin' }, plane.now())
      const get = (query: string) => fetch(`${server.url}/api/audit?${query}`, { headers: { authorization: `Bearer ${key}` } })
      const response = await get(`traceId=${traceId}`)
      expect(((await response.json()) as { items: Array<{ callId?: string; call_id?: string }> }).items).toHaveLength(3)
      const bad = await get('traceId=xyz')
      expect(bad.status).toBe(400)
      expect(await bad.json()).toMatchObject({ error: { message: expect.stringContaining('traceId: must be a 32-hex-digit trace id') } })
    } finally {
      await server.close()
    }
  })

  it('traces an approval wait as its own span inside the call, from the request to the decision, in wait mode and ask mode', async () => {
    plane = await openTestPlane(database)
    const helper = agentCaller('helper')
    // Wait mode: the call waits inside itself.
    const waiting = plane.invoke('write_thing', { value: 'waited' }, { caller: helper, approval: { mode: 'ask', wait: 60 } })
    let approvalId = ''
    await waitFor(async () => {
      approvalId = (await plane!.approvals.list({ status: 'pending', limit: 5 })).items[0]?.id ?? ''
      return approvalId !== ''
    })
    await plane.approvals.decide({ id: approvalId, caller: admin, decision: 'approve' })
    const waited = await waiting
    expect(waited.ok).toBe(true)
    // Ask mode: refused, decided, then run with the approval.
    const asked = approvalIdOf(await plane.invoke('write_thing', { value: 'asked' }, { caller: helper }))
    await plane.approvals.decide({ id: asked, caller: admin, decision: 'approve' })
    const ran = await plane.invoke('write_thing', { value: 'asked' }, { caller: helper, approval: { mode: 'use', approvalId: asked } })
    expect(ran.ok).toBe(true)

    const spans = exporter.getFinishedSpans()
    const callSpan = (callId: string) => spans.find((s) => s.attributes['skillplane.call_id'] === callId)!
    const ms = (time: [number, number]) => time[0] * 1000 + time[1] / 1e6
    for (const [callId, id] of [
      [waited.callId, approvalId],
      [ran.callId, asked],
    ] as const) {
      const wait = spans.find((s) => s.name === 'approval wait' && s.attributes['skillplane.approval_id'] === id)!
      expect(wait.parentSpanContext?.spanId).toBe(callSpan(callId).spanContext().spanId)
      const view = (await plane.approvals.get(id))!
      expect(ms(wait.startTime)).toBe(Date.parse(view.createdAt))
      expect(ms(wait.endTime)).toBeGreaterThanOrEqual(Date.parse(view.decidedAt!))
      expect(ms(wait.endTime)).toBeLessThanOrEqual(ms(callSpan(callId).endTime))
    }
  })

  it("continues the trace through MCP: a skillplane's call of its own /mcp runs under a tools/call span of the caller's trace", async () => {
    const port = await freePort()
    plane = await openTestPlane(database, {
      skills: testSkills(),
      mcpServers: [{ name: 'self', url: `http://127.0.0.1:${port}/mcp`, headers: { authorization: { secret: 'SELF_TOKEN', prefix: 'Bearer ' } } }],
    })
    const server = await startHttpServer(plane, { host: '127.0.0.1', port })
    try {
      const { key } = await plane.people.keys.create({ name: 'root', role: 'admin' }, plane.now())
      await plane.values.secrets.set('SELF_TOKEN', key)
      await waitFor(() => plane!.sources.mcpServers()[0]!.state === 'connected')
      exporter.reset()
      const envelope = await plane.invoke('self_parent_call', {}, { caller: admin })
      expect(envelope.ok).toBe(true)
      const spans = exporter.getFinishedSpans()
      const named = (name: string) => spans.find((s) => s.name === name)!
      const outer = named('skill self_parent_call')
      const served = named('tools/call parent_call')
      const inner = named('skill parent_call')
      const nested = named('skill echo')
      expect(served.kind).toBe(1 /* SERVER */)
      expect(served.parentSpanContext?.spanId).toBe(outer.spanContext().spanId)
      expect(inner.parentSpanContext?.spanId).toBe(served.spanContext().spanId)
      expect(nested.parentSpanContext?.spanId).toBe(inner.spanContext().spanId)
      expect(new Set([outer, served, inner, nested].map((s) => s.spanContext().traceId)).size).toBe(1)
      // The audit agrees: the served call is in the caller's trace and names it as its origin.
      const row = (await plane.audit.query({ skill: 'parent_call', limit: 1 })).items[0]!
      expect(row).toMatchObject({ traceId: outer.spanContext().traceId, originCallId: envelope.callId })
    } finally {
      await server.close()
    }
  })
})
