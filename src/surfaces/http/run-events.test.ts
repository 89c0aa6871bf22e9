import { afterEach, describe, expect, it } from 'vitest'
import { MockLanguageModelV3 } from 'ai/test'
import { ulid } from 'ulid'
import type { LanguageModelV3GenerateResult } from '@ai-sdk/provider'
import { databases, waitFor } from '../../test-support/databases.js'
import { admin, openTestPlane, operator, testAgents } from '../../test-support/fixtures.js'
import { callsTool, says, scripted, streamed } from '../../test-support/mock-model.js'
import type { Skillplane } from '../../agents/index.js'
import type { RunEvent } from '../../agents/index.js'
import { startHttpServer, type HttpServer } from './start-http-server.js'
import { simulateReadableStream } from 'ai'
import { z } from 'zod'
import type { LanguageModelV3StreamPart } from '@ai-sdk/provider'
import { defineSkill } from '../../skill/index.js'
import { testSkills } from '../../test-support/fixtures.js'
import { listenSse } from '../../test-support/listen-sse.js'

/** A `GET /api/runs/{id}/events` stream: what it has received so far, parsed, and `ended` once the server closes it. */
const listen = (url: string, key: string, runId: string, lastEventId?: string) => listenSse<any>(`${url}/api/runs/${runId}/events`, key, lastEventId)

/** A promise and the function that resolves it. */
function gate(): { open(): void; opened: Promise<void> } {
  let open = () => {}
  const opened = new Promise<void>((resolve) => (open = resolve))
  return { open, opened }
}

/** A mock model that answers its n-th call with `turns[n]`, streamed, once `gates[n]` is open. */
function gatedModel(turns: LanguageModelV3GenerateResult[], gates: Array<{ opened: Promise<void> }>): MockLanguageModelV3 {
  const model: MockLanguageModelV3 = new MockLanguageModelV3({
    doStream: async () => {
      const n = model.doStreamCalls.length - 1
      await gates[n]?.opened
      return streamed(turns[n]!)
    },
  })
  return model
}

/** The events of what a run did (its text and tool steps, and its end), without its model calls. */
const work = <T extends { event?: string; data?: any; type?: string; step?: { kind: string } }>(events: T[]): T[] =>
  events.filter((e) => !(e.event === 'step' && e.data.kind === 'model') && !(e.type === 'step' && e.step!.kind === 'model'))

const TURNS = [callsTool('echo', { message: 'one' }), callsTool('echo', { message: 'two' }, 'call-2'), says('all done')]

describe.each(databases)('following a run over GET /api/runs/{id}/events on $name', (database) => {
  const planes: Skillplane[] = []
  const servers: HttpServer[] = []
  const streams: Array<{ close(): void }> = []
  afterEach(async () => {
    streams.splice(0).forEach((s) => s.close())
    await Promise.all(servers.splice(0).map((s) => s.close()))
    await Promise.all(planes.splice(0).map((p) => p.close()))
  })
  const open = async (model: MockLanguageModelV3, location?: Awaited<ReturnType<typeof database.create>>, skills: unknown[] = testSkills()) => {
    const plane = await openTestPlane(
      database,
      { skills: skills as ReturnType<typeof testSkills>, agents: [{ ...testAgents![0]!, model }, testAgents![1]!] },
      location,
    )
    planes.push(plane)
    return plane
  }
  const serve = async (plane: Skillplane) => {
    const server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    servers.push(server)
    return server
  }
  const key = async (plane: Skillplane, role: 'viewer' | 'operator' | 'agent', agentId?: string) =>
    (await plane.people.keys.create({ name: `${role}-${ulid()}`, role, ...(agentId && { agentId }) }, plane.now())).key

  it('sends each step as soon as it is stored, with its audit call id, then the end, and resumes after Last-Event-ID', async () => {
    const gates = [{ opened: Promise.resolve() }, gate(), gate()] as const
    const model = gatedModel(TURNS, [...gates])
    const plane = await open(model)
    const server = await serve(plane)
    const operatorKey = await key(plane, 'operator')
    const started = await fetch(`${server.url}/api/agents/helper/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${operatorKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'echo one, then two', wait: false }),
    })
    expect(started.status).toBe(202)
    const run = (await started.json()) as { id: string; status: string }
    expect(run.status).toBe('running')

    const stream = await listen(server.url, operatorKey, run.id)
    streams.push(stream)
    // The model's second step is held back: the first step arrives without it.
    await waitFor(() => work(stream.received).length === 1)
    expect(model.doStreamCalls.length).toBeLessThanOrEqual(2)
    const [first] = work(stream.received)
    expect(first).toMatchObject({
      event: 'step',
      data: { index: 1, kind: 'tool', tool: 'echo', input: { message: 'one' }, status: 'ok', callId: expect.any(String) },
    })
    // The second model call is under way (held back): it shows, running, before it answers.
    await waitFor(() => stream.received.some((r) => r.data.kind === 'model' && r.data.stepNumber === 2 && r.data.status === 'running'))
    gates[1].open()
    await waitFor(() => work(stream.received).length === 2)
    expect(work(stream.received)[1]).toMatchObject({ event: 'step', data: { index: 3, tool: 'echo', input: { message: 'two' }, status: 'ok' } })
    gates[2].open()
    await stream.ended
    expect(work(stream.received).map((r) => r.event)).toEqual(['step', 'step', 'step', 'end'])
    expect(work(stream.received)[2]!.data).toMatchObject({ index: 5, kind: 'text', text: 'all done' })
    expect(work(stream.received)[3]!.data).toMatchObject({ id: run.id, status: 'completed', output: 'all done', error: null })
    // Step ids rise; each tool call's id names its audit row.
    const ids = stream.received.filter((r) => r.event === 'step').map((r) => Number(r.id))
    expect(ids).toEqual([...ids].sort((a, b) => a - b))
    expect(new Set(ids).size).toBe(ids.length)
    const audit = (await (await fetch(`${server.url}/api/audit?skill=echo`, { headers: { authorization: `Bearer ${operatorKey}` } })).json()) as {
      items: Array<{ callId: string; input: unknown; conversationId: string }>
    }
    for (const step of work(stream.received).slice(0, 2)) {
      expect(audit.items.find((row) => row.callId === step.data.callId)).toMatchObject({ input: step.data.input, conversationId: `run:${run.id}` })
    }

    // A client that reconnects after the first step gets the rest once each.
    const resumed = await listen(server.url, operatorKey, run.id, first!.id)
    await resumed.ended
    expect(work(resumed.received)).toEqual(work(stream.received).slice(1))
    // A finished run is replayed whole (a model step as it ended, not as it ran), then ends.
    const replayed = await listen(server.url, operatorKey, run.id)
    await replayed.ended
    expect(work(replayed.received)).toEqual(work(stream.received))
    expect(replayed.received.filter((r) => r.data.kind === 'model').map((r) => [r.data.stepNumber, r.data.status])).toEqual([
      [1, 'ok'],
      [2, 'ok'],
      [3, 'ok'],
    ])
  })

  it('streams a run started through the library API on another manager sharing the database, the same to followers of both', async () => {
    const location = await database.create()
    const gates = [{ opened: Promise.resolve() }, gate(), gate()] as const
    const model = gatedModel(TURNS, [...gates])
    const there = await open(model, location)
    const here = await open(scripted(), location)
    const server = await serve(here)
    const operatorKey = await key(here, 'operator')

    const run = await there.runs.start({ agent: 'helper', prompt: 'echo one, then two', requester: admin, wait: false })
    expect(run).toMatchObject({ status: 'running', steps: [] })
    const stream = await listen(server.url, operatorKey, run.id)
    streams.push(stream)
    // The library's own follower, on the manager driving the run.
    const gone = new AbortController()
    const followed: RunEvent[] = []
    const following = (async () => {
      for await (const event of there.runs.follow(run.id, { signal: gone.signal })) followed.push(event)
    })()
    await waitFor(() => work(stream.received).length === 1 && work(followed).length === 1)
    expect(model.doStreamCalls.length).toBeLessThanOrEqual(2)
    const seen = work(followed)[0]!
    expect(work(stream.received)[0]).toMatchObject({ id: String(seen.type === 'step' && seen.rev), data: { index: 1, tool: 'echo', status: 'ok' } })
    // A follower that leaves stops following; the run goes on.
    gone.abort()
    await following
    gates[1].open()
    gates[2].open()
    await stream.ended
    expect(work(stream.received).map((r) => [r.event, r.data.index ?? r.data.status])).toEqual([
      ['step', 1],
      ['step', 3],
      ['step', 5],
      ['end', 'completed'],
    ])
    const all: RunEvent[] = []
    for await (const event of here.runs.follow(run.id, { signal: new AbortController().signal })) all.push(event)
    expect(work(all).map((e) => (e.type === 'step' ? { id: String(e.rev), event: 'step', data: e.step } : { event: 'end', data: e.run }))).toEqual(
      work(stream.received).map((r) => (r.event === 'end' ? { event: 'end', data: r.data } : r)),
    )
    expect(work(followed)).toEqual(work(all).slice(0, 1))
  })

  it('ends at a pause for approval, sends the paused call again once it ran, and refuses those who may not read runs', async () => {
    const plane = await open(scripted(callsTool('write_thing', { value: 'v1' }), says('stored v1')))
    const server = await serve(plane)
    const operatorKey = await key(plane, 'operator')
    const paused = await plane.runs.start({ agent: 'helper', prompt: 'store v1', requester: admin })
    expect(paused.status).toBe('awaiting_approval')

    const first = await listen(server.url, operatorKey, paused.id)
    await first.ended
    expect(first.received).toMatchObject([
      { event: 'step', data: { index: 0, kind: 'model', status: 'ok' } },
      { event: 'step', data: { index: 1, tool: 'write_thing', status: 'awaiting_approval', approvalId: paused.pending[0]!.approvalId } },
      { event: 'end', data: { status: 'awaiting_approval', pending: [{ tool: 'write_thing', approvalId: paused.pending[0]!.approvalId }] } },
    ])

    const refusals = async (token: string, runId: string) => {
      const response = await fetch(`${server.url}/api/runs/${runId}/events`, { headers: { authorization: `Bearer ${token}` } })
      return { status: response.status, body: (await response.json()) as unknown }
    }
    expect(await refusals(await key(plane, 'viewer'), paused.id)).toMatchObject({
      status: 403,
      body: { error: { code: 'denied', message: 'reading runs needs the operator role or higher' } },
    })
    expect(await refusals(await key(plane, 'agent', plane.agents.resolve('Other')!), paused.id)).toMatchObject({ status: 404 })
    expect(await refusals(operatorKey, ulid())).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } })

    await plane.approvals.decide({
      id: paused.pending[0]!.approvalId!,
      caller: operator,
      decision: 'approve',
    })
    await waitFor(async () => (await plane.runs.get(paused.id))!.status === 'completed')
    // Reconnecting after the paused step: the step again, now run, then what followed; nothing seen twice as it was.
    const after = await listen(server.url, operatorKey, paused.id, first.received[1]!.id)
    await after.ended
    expect(after.received).toMatchObject([
      { event: 'step', data: { index: 1, tool: 'write_thing', status: 'ok', output: { stored: 'v1' }, callId: expect.any(String) } },
      { event: 'step', data: { index: 2, kind: 'model', stepNumber: 2, status: 'ok' } },
      { event: 'step', data: { index: 3, kind: 'text', text: 'stored v1' } },
      { event: 'end', data: { status: 'completed', output: 'stored v1' } },
    ])
    expect(Number(after.received[0]!.id)).toBeGreaterThan(Number(first.received[1]!.id))
  })

  it('shows a model call running while it streams, then as it ended: its timing, first chunk and usage', async () => {
    // The answer streams a chunk every few ms, as a model's would; its end is held until the test has seen the call running.
    const finish = gate()
    const held = new TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart>({
      async transform(chunk, controller) {
        if (chunk.type === 'finish') await finish.opened
        controller.enqueue(chunk)
      },
    })
    const { stream: parts } = streamed(says('a slow answer in several words', { input: 7, output: 6 }))
    const chunks: LanguageModelV3StreamPart[] = []
    for await (const chunk of parts as unknown as AsyncIterable<LanguageModelV3StreamPart>) chunks.push(chunk)
    const model = new MockLanguageModelV3({ doStream: async () => ({ stream: simulateReadableStream({ chunks, chunkDelayInMs: 5 }).pipeThrough(held) }) })
    const plane = await open(model)
    const server = await serve(plane)
    const operatorKey = await key(plane, 'operator')
    const run = await plane.runs.start({ agent: 'helper', prompt: 'answer slowly', requester: admin, wait: false })
    const stream = await listen(server.url, operatorKey, run.id)
    streams.push(stream)
    await waitFor(() => stream.received.some((r) => r.data.kind === 'model' && r.data.status === 'running'))
    const running = stream.received.find((r) => r.data.kind === 'model')!
    expect(running.data).toMatchObject({ index: 0, stepNumber: 1, status: 'running', startedAt: expect.any(String), finishedAt: null, durationMs: null })
    expect(stream.received.some((r) => r.event === 'end')).toBe(false)
    finish.open()
    await stream.ended
    const ended = stream.received.filter((r) => r.data.kind === 'model').at(-1)!
    expect(Number(ended.id)).toBeGreaterThan(Number(running.id))
    expect(ended.data).toMatchObject({
      index: 0,
      status: 'ok',
      startedAt: running.data.startedAt,
      finishedAt: expect.any(String),
      model: { provider: 'mock-provider', modelId: 'mock-model-id' },
      usage: { inputTokens: 7, outputTokens: 6 },
      finishReason: 'stop',
    })
    expect(ended.data.firstChunkMs).toBeLessThanOrEqual(ended.data.durationMs)
    expect(work(stream.received).map((r) => r.event)).toEqual(['step', 'end'])
    expect(stream.received.at(-1)!.data).toMatchObject({ status: 'completed', totals: { modelSteps: 1, inputTokens: 7, outputTokens: 6 } })
  })

  it('serves what the model was sent on a model step with secrets redacted, as in the steps and their events; refuses a bad step clearly', async () => {
    const PASSWORD = 'Pw-7c1-secret'
    const TOKEN = 'tok-Zq9-issued'
    const issueKey = defineSkill({
      key: 'issue_key',
      description: 'Checks an account password and issues an API token',
      class: 'safe',
      agents: ['Helper'],
      input: z.object({ account: z.string(), password: z.string() }),
      output: z.object({ greeting: z.string(), apiToken: z.string() }),
      run: ({ account, password }) => ({ greeting: `welcome ${account}, password ${password} works`, apiToken: TOKEN }),
    })
    const model = scripted(callsTool('issue_key', { account: 'bob', password: PASSWORD }), says('bob has a token now'))
    const plane = await open(model, undefined, [...testSkills(), issueKey])
    const server = await serve(plane)
    const operatorKey = await key(plane, 'operator')
    const get = async (path: string, token = operatorKey) => {
      const response = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}` } })
      return { status: response.status, body: (await response.json()) as any }
    }
    const run = await plane.runs.start({ agent: 'helper', prompt: 'get bob a token', requester: admin })
    expect(run.status).toBe('completed')
    // The model saw both secrets in the tool's result (that is what it is for) ...
    const seen = JSON.stringify(model.doStreamCalls[1]!.prompt)
    expect(seen).toContain(PASSWORD)
    expect(seen).toContain(TOKEN)
    // ... what is stored and served of it has neither: the request, the steps, their events.
    const request = await get(`/api/runs/${run.id}/steps/2/request`)
    expect(request.status).toBe(200)
    const redacted = (text: string) => text.replaceAll(PASSWORD, '[REDACTED]').replaceAll(TOKEN, '[REDACTED]')
    expect(request.body.messages).toEqual(JSON.parse(redacted(JSON.stringify(model.doStreamCalls[1]!.prompt.slice(1)))))
    expect(request.body.tools.map((t: { name: string }) => t.name)).toContain('issue_key')
    const shown = await get(`/api/runs/${run.id}`)
    const events = await listen(server.url, operatorKey, run.id)
    await events.ended
    for (const served of [JSON.stringify(request.body), JSON.stringify(shown.body), JSON.stringify(events.received)]) {
      expect(served).not.toContain(PASSWORD)
      expect(served).not.toContain(TOKEN)
    }
    expect(shown.body.steps[1]).toMatchObject({ input: { account: 'bob', password: '[REDACTED]' }, output: { apiToken: '[REDACTED]' } })

    // A step that is not a model call, one that isn't there, an index that isn't one, a run that isn't there or isn't theirs.
    expect(await get(`/api/runs/${run.id}/steps/1/request`)).toMatchObject({
      status: 404,
      body: { error: { code: 'not_found', message: `step 1 of run "${run.id}" is a tool step: only a model step has a request` } },
    })
    expect(await get(`/api/runs/${run.id}/steps/9/request`)).toMatchObject({
      status: 404,
      body: { error: { code: 'not_found', message: `run "${run.id}" has no step 9` } },
    })
    for (const bad of ['-1', 'one', '1.5', '99999999999']) {
      expect(await get(`/api/runs/${run.id}/steps/${bad}/request`)).toMatchObject({
        status: 400,
        body: { error: { code: 'invalid_input', message: `invalid step index "${bad}": a step's index is a whole number from 0` } },
      })
    }
    const missing = ulid()
    expect(await get(`/api/runs/${missing}/steps/0/request`)).toMatchObject({ status: 404, body: { error: { message: `no run "${missing}"` } } })
    expect(await get(`/api/runs/${run.id}/steps/0/request`, await key(plane, 'agent', plane.agents.resolve('Other')!))).toMatchObject({
      status: 404,
      body: { error: { message: `no run "${run.id}"` } },
    })
    expect(await get(`/api/runs/${run.id}/steps/0/request`, await key(plane, 'viewer'))).toMatchObject({ status: 403 })
  })
})
