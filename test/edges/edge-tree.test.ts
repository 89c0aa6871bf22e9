import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { context, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { databases } from '../../src/test-support/databases.js'
import { slowPack, startEdge, startManager, waitFor } from './edge-harness.js'

const postgres = databases.find((d) => d.name === 'postgres')
const exporter = new InMemorySpanExporter()

describe.skipIf(!postgres)('the call tree of an edge call relayed between managers on PostgreSQL', () => {
  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }))
  })
  afterAll(() => {
    trace.disable()
    context.disable()
  })

  it('shows the relay to the manager holding the edge, and the edge inside it, in the tree and in OTLP', async () => {
    const location = await postgres!.create()
    const holder = await startManager(location)
    const caller = await startManager(location)
    const enrolled = await holder.api('POST', '/api/edges', { name: 'far' })
    const edge = startEdge([holder.url], enrolled.body.token, ['--packs', slowPack().dir])
    await waitFor(() => caller.plane.sources.edges.get('far')?.online === true || edge.child.exitCode !== null)
    if (caller.plane.sources.edges.get('far')?.online !== true) throw new Error(`the edge did not come online: ${edge.output()}`)
    const holderId = holder.plane.status.managerId
    expect(caller.plane.sources.edges.get('far')!.managerId).toBe(holderId)

    const relayed = await caller.invoke('slow_op', { input: { ms: 5 }, edgeId: 'far' })
    expect(relayed).toMatchObject({ status: 200, body: { ok: true } })
    const callId = relayed.body.callId
    const { status, body } = await caller.api('GET', `/api/audit/${callId}/tree`)
    expect(status).toBe(200)
    expect(body.spans.map((s: any) => [s.kind, s.name, s.parentId])).toEqual([
      ['call', 'slow_op', null],
      ['relay', `manager ${holderId}`, `call:${callId}`],
      ['edge', 'edge far', `relay:${callId}`],
    ])
    const [call, relay, onEdge] = body.spans
    expect(relay).toMatchObject({ managerId: holderId, edge: 'far', status: 'ok', callId })
    expect(onEdge).toMatchObject({ managerId: holderId, edge: 'far', status: 'ok' })
    const ms = (iso: string) => Date.parse(iso)
    expect(ms(call.startedAt) <= ms(relay.startedAt) && ms(relay.endedAt) <= ms(call.endedAt)).toBe(true)
    // Both managers share one clock here: the edge's part lies inside the relay.
    expect(ms(relay.startedAt) <= ms(onEdge.startedAt) && ms(onEdge.endedAt) <= ms(relay.endedAt)).toBe(true)
    // The holder's tree of the same call is the same: the relay is kept on the audit row, not in edge_calls.
    expect((await holder.api('GET', `/api/audit/${callId}/tree`)).body).toEqual(body)

    const spans = exporter.getFinishedSpans()
    const skill = spans.find((s) => s.attributes['skillplane.call_id'] === callId)!
    const relaySpan = spans.find((s) => s.name === 'edge relay')!
    const edgeSpan = spans.find((s) => s.name === 'edge far')!
    expect(relaySpan.parentSpanContext?.spanId).toBe(skill.spanContext().spanId)
    expect(relaySpan.attributes).toMatchObject({ 'skillplane.manager': holderId, 'skillplane.edge': 'far' })
    expect(edgeSpan.parentSpanContext?.spanId).toBe(relaySpan.spanContext().spanId)
    expect(new Set([skill, relaySpan, edgeSpan].map((s) => s.spanContext().traceId)).size).toBe(1)
  })
})
