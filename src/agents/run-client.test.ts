import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createRequire } from 'node:module'
import { MockLanguageModelV3 } from 'ai/test'
import { ulid } from 'ulid'
import { z } from 'zod'
import { databases, waitFor } from '../test-support/databases.js'
import { openTestPlane, testAgents, testSkills } from '../test-support/fixtures.js'
import { callsTool, says, streamed } from '../test-support/mock-model.js'
import { listenSse } from '../test-support/listen-sse.js'
import { sopSigner } from '../test-support/sop.js'
import { defineSkill } from '../skill/index.js'
import type { SkillplaneConfig } from '../config/index.js'
import { startHttpServer, type HttpServer } from '../surfaces/http/index.js'
import { openDatabase } from '../store/open-database.js'
import type { Skillplane } from './index.js'

const pricing = { inputPerMTok: 3, outputPerMTok: 15 }
const EVERYTHING = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js')
/** The reference everything server, imported over stdio; its asking tools bound to the test agent, safe so they run at once. */
const everything = {
  name: 'every',
  command: process.execPath,
  args: [EVERYTHING, 'stdio'],
  agents: ['Helper'],
  tools: { 'trigger-sampling-request': { class: 'safe' as const }, 'trigger-elicitation-request': { class: 'safe' as const } },
}
const SAMPLING_LOOP = join(import.meta.dirname, '../sources/mcp/fixtures/sampling-loop-mcp-server.mjs')
const NAME_FORM = {
  type: 'object' as const,
  properties: { name: { type: 'string' as const, minLength: 1 }, age: { type: 'integer' as const, minimum: 0 } },
  required: ['name'],
}

const PASSWORD = 'hunter2-very-secret'
const PIN = '8642-9753'
/** A login form: `password` is secret by its name, `pin` by its schema (writeOnly). */
const LOGIN_FORM = {
  type: 'object' as const,
  properties: { user: { type: 'string' as const }, password: { type: 'string' as const }, pin: { type: 'string' as const, writeOnly: true } },
  required: ['user', 'password', 'pin'],
}

/** Skills that ask their caller: for a completion (with or without tools), for a form, for a link to be opened. */
const askingSkills = () => [
  ...testSkills(),
  defineSkill({
    key: 'summarise',
    description: 'Summarise with the caller model',
    class: 'safe',
    agents: ['Helper'],
    input: z.object({ text: z.string(), tools: z.boolean().default(false), media: z.enum(['image', 'audio']).optional() }),
    run: async ({ text, tools, media }, ctx) =>
      ctx.client.sample(
        {
          systemPrompt: 'Summarise.',
          messages: [
            {
              role: 'user',
              content: media
                ? [
                    { type: 'text', text },
                    { type: media, data: 'iVBORw0KGgo=', mimeType: `${media}/png` },
                  ]
                : { type: 'text', text },
            },
          ],
          maxTokens: 50,
          temperature: 0.2,
          stopSequences: ['END'],
          ...(tools && { tools: [{ name: 'lookup', inputSchema: { type: 'object' } }] }),
        },
        { signal: ctx.signal },
      ),
  }),
  defineSkill({
    key: 'ask_name',
    description: 'Ask the person their name',
    class: 'safe',
    agents: ['Helper'],
    input: z.object({}),
    run: async (_input, ctx) => ctx.client.elicit({ message: 'Who are you?', requestedSchema: NAME_FORM }, { signal: ctx.signal }),
  }),
  defineSkill({
    key: 'ask_login',
    description: 'Ask the person to log in',
    class: 'safe',
    agents: ['Helper'],
    input: z.object({}),
    run: async (_input, ctx) => {
      const answer = await ctx.client.elicit({ message: 'Log in', requestedSchema: LOGIN_FORM }, { signal: ctx.signal })
      // The call gets the answer as typed; only what is kept of it is redacted.
      return { action: answer.action, typed: answer.content?.password === PASSWORD && answer.content?.pin === PIN }
    },
  }),
  defineSkill({
    key: 'ask_dangerously',
    description: 'Ask the person their name, from a destructive tool',
    class: 'dangerous',
    agents: ['Helper'],
    input: z.object({}),
    run: async (_input, ctx) => ctx.client.elicit({ message: 'Who wipes?', requestedSchema: NAME_FORM }, { signal: ctx.signal }),
  }),
  defineSkill({
    key: 'ask_briefly',
    description: 'Ask the person their name, with a short deadline',
    class: 'safe',
    agents: ['Helper'],
    timeoutMs: 60_000,
    input: z.object({}),
    run: async (_input, ctx) => ctx.client.elicit({ message: 'Quick: who are you?', requestedSchema: NAME_FORM }, { signal: ctx.signal }),
  }),
  defineSkill({
    key: 'ask_link',
    description: 'Send the person to a link',
    class: 'safe',
    agents: ['Helper'],
    input: z.object({ url: z.string() }),
    run: async ({ url }, ctx) => ctx.client.elicit({ mode: 'url', message: 'Sign the form', url, elicitationId: 'e1' }, { signal: ctx.signal }),
  }),
]

/** A model that calls `tool` first, then says done (`runs` times over); its doGenerate answers a sampling request. */
const agentModel = (tool: string, input: object, runs = 1) =>
  new MockLanguageModelV3({
    doStream: Array.from({ length: runs }, () => [
      streamed(callsTool(tool, input, 'call-1', { input: 10, output: 5 })),
      streamed(says('done', { input: 20, output: 2 })),
    ]).flat(),
    doGenerate: { ...says('a short summary', { input: 100, output: 7 }), response: { modelId: 'mock-sampler' } } as never,
  })

describe.each(databases)('an agent run as the caller of its tool calls on $name', (database) => {
  const planes: Skillplane[] = []
  const servers: HttpServer[] = []
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()))
    await Promise.all(planes.splice(0).map((p) => p.close()))
  })
  const open = async (model: MockLanguageModelV3, config: SkillplaneConfig = {}, location?: Awaited<ReturnType<typeof database.create>>) => {
    const plane = await openTestPlane(
      database,
      { skills: askingSkills(), agents: [{ ...testAgents![0]!, model, pricing }, testAgents![1]!], ...config },
      location,
    )
    planes.push(plane)
    const server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    servers.push(server)
    return { plane, server }
  }
  const key = async (plane: Skillplane, role: 'viewer' | 'operator' | 'admin' | 'agent', agentId?: string) =>
    (await plane.people.keys.create({ name: `${role}-${ulid()}`, role, ...(agentId && { agentId }) }, plane.now())).key
  const http = (url: string, k: string, method: string, path: string, body?: unknown) =>
    fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${k}`, 'content-type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    })
  const startRun = async (url: string, k: string, prompt: string) => {
    const response = await http(url, k, 'POST', '/api/agents/helper/runs', { prompt, wait: false })
    expect(response.status).toBe(202)
    return ((await response.json()) as { id: string }).id
  }
  const getRun = async (url: string, k: string, id: string) => (await (await http(url, k, 'GET', `/api/runs/${id}`)).json()) as any
  const waitingInput = async (url: string, k: string, id: string) => {
    let input: any
    await waitFor(async () => {
      input = (await getRun(url, k, id)).inputs?.find((i: any) => i.status === 'pending')
      return input !== undefined
    })
    return input
  }
  const ended = async (url: string, k: string, id: string) => {
    let run: any
    await waitFor(async () => {
      run = await getRun(url, k, id)
      return run.status === 'completed' || run.status === 'failed'
    })
    return run
  }

  it("answers a tool call's sampling with the agent's model: its text, a sampling step, its usage and cost in the run's totals", async () => {
    const model = agentModel('summarise', { text: 'a long text' })
    const { plane, server } = await open(model)
    const k = await key(plane, 'operator')
    const run = await ended(server.url, k, await startRun(server.url, k, 'summarise it'))
    expect(run.status).toBe('completed')
    const tool = run.steps.find((s: any) => s.kind === 'tool')
    expect(tool.status).toBe('ok')
    expect(tool.output).toEqual({ role: 'assistant', content: { type: 'text', text: 'a short summary' }, model: 'mock-sampler', stopReason: 'endTurn' })
    // What the model was asked: the request's system prompt, message, limits.
    const call = model.doGenerateCalls[0]!
    expect(call.prompt[0]).toEqual({ role: 'system', content: 'Summarise.' })
    expect(call.prompt[1]).toMatchObject({ role: 'user', content: [{ type: 'text', text: 'a long text' }] })
    expect(call).toMatchObject({ maxOutputTokens: 50, temperature: 0.2, stopSequences: ['END'] })
    const sampling = run.steps.find((s: any) => s.kind === 'sampling')
    expect(sampling).toMatchObject({
      tool: 'summarise',
      toolCallId: 'call-1',
      text: 'a short summary',
      status: 'ok',
      finishReason: 'stop',
      model: { modelId: 'mock-sampler' },
      usage: { inputTokens: 100, outputTokens: 7 },
    })
    expect(sampling.costUsd).toBeCloseTo((100 * 3 + 7 * 15) / 1e6)
    // The run's two model steps and the sampling, all counted; maxSteps counts the agent's own steps only.
    expect(run.totals).toMatchObject({ inputTokens: 130, outputTokens: 14, modelSteps: 2 })
    expect(run.totals.costUsd).toBeCloseTo((130 * 3 + 14 * 15) / 1e6)
  })

  it('refuses a sampling request that offers tools, naming why', async () => {
    const model = agentModel('summarise', { text: 'x', tools: true })
    const { plane, server } = await open(model)
    const k = await key(plane, 'operator')
    const run = await ended(server.url, k, await startRun(server.url, k, 'summarise it'))
    const tool = run.steps.find((s: any) => s.kind === 'tool')
    expect(tool.status).toBe('error')
    expect(tool.error).toMatch(/sampling without tools/)
    expect(model.doGenerateCalls).toHaveLength(0)
  })

  it("maps a sampling request's images to the model's image parts, and refuses audio naming it", async () => {
    const model = agentModel('summarise', { text: 'what is this?', media: 'image' })
    const { plane, server } = await open(model)
    const k = await key(plane, 'operator')
    const run = await ended(server.url, k, await startRun(server.url, k, 'look'))
    expect(run.steps.find((s: any) => s.kind === 'tool').status).toBe('ok')
    expect(model.doGenerateCalls[0]!.prompt[1]).toMatchObject({
      role: 'user',
      content: [
        { type: 'text', text: 'what is this?' },
        { type: 'file', mediaType: 'image/png' },
      ],
    })
    expect(run.steps.find((s: any) => s.kind === 'sampling').input.messages).toEqual([{ role: 'user', content: ['what is this?', '[image image/png]'] }])

    const deaf = agentModel('summarise', { text: 'listen', media: 'audio' })
    const other = await open(deaf)
    const k2 = await key(other.plane, 'operator')
    const refused = await ended(other.server.url, k2, await startRun(other.server.url, k2, 'listen'))
    expect(refused.steps.find((s: any) => s.kind === 'tool').error).toMatch(/sampling message 0 has audio content/)
    expect(deaf.doGenerateCalls).toHaveLength(0)
  })

  it('waits for the input a tool call asks for: seen waiting (HTTP and SSE), answered over HTTP, checked, decided once', async () => {
    const { plane, server } = await open(agentModel('ask_name', {}))
    const requester = await key(plane, 'operator')
    const id = await startRun(server.url, requester, 'who am I talking to?')
    const input = await waitingInput(server.url, requester, id)
    expect(input).toMatchObject({ mode: 'form', message: 'Who are you?', tool: 'ask_name', toolCallId: 'call-1', requestedSchema: NAME_FORM })
    const run = await getRun(server.url, requester, id)
    expect(run.status).toBe('running')
    expect(run.steps.find((s: any) => s.kind === 'input')).toMatchObject({ status: 'awaiting_input', tool: 'ask_name', input: { inputId: input.id } })
    // A follower sees the step waiting too.
    const sse = await listenSse<any>(`${server.url}/api/runs/${id}/events`, requester)
    await waitFor(() => sse.received.some((e) => e.event === 'step' && e.data.kind === 'input' && e.data.status === 'awaiting_input'))
    const path = `/api/runs/${id}/inputs/${input.id}`
    // Not theirs to answer: the agent's own key, a viewer; and an unknown request.
    const agentKey = await key(plane, 'agent', 'helper')
    const byAgent = await http(server.url, agentKey, 'POST', path, { action: 'accept', content: { name: 'bot' } })
    expect(byAgent.status).toBe(403)
    expect(((await byAgent.json()) as any).error.message).toMatch(/agent key may not answer/)
    expect((await http(server.url, await key(plane, 'viewer'), 'POST', path, { action: 'decline' })).status).toBe(403)
    expect((await http(server.url, requester, 'POST', `/api/runs/${id}/inputs/nope`, { action: 'decline' })).status).toBe(404)
    // Content that doesn't match the requested schema, named.
    const bad = await http(server.url, requester, 'POST', path, { action: 'accept', content: { name: 'Ada', age: 'old' } })
    expect(bad.status).toBe(400)
    expect(((await bad.json()) as any).error.message).toMatch(/\/age/)
    const missing = await http(server.url, requester, 'POST', path, { action: 'accept', content: {} })
    expect(((await missing.json()) as any).error.message).toMatch(/name/)
    // Two answers at once: one wins, the other is told why.
    const answers = await Promise.all([
      http(server.url, requester, 'POST', path, { action: 'accept', content: { name: 'Ada', age: 36 } }),
      http(server.url, requester, 'POST', path, { action: 'decline' }),
    ])
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409])
    const lost = answers.find((r) => r.status === 409)!
    expect(((await lost.json()) as any).error.message).toMatch(/already by operator-/)
    const won = (await answers.find((r) => r.status === 200)!.json()) as any
    const done = await ended(server.url, requester, id)
    expect(done.status).toBe('completed')
    const tool = done.steps.find((s: any) => s.kind === 'tool')
    expect(tool.output).toEqual(won.status === 'accepted' ? { action: 'accept', content: { name: 'Ada', age: 36 } } : { action: 'decline' })
    expect(done.steps.find((s: any) => s.kind === 'input').status).toBe(won.status)
    expect(done.inputs[0]).toMatchObject({ status: won.status, answeredBy: { name: expect.stringMatching(/^operator-/) } })
    await sse.close()
  })

  it('keeps and shows a typed password redacted (the run view, its steps, SSE, the answer echoed) while the call gets it as typed', async () => {
    const { plane, server } = await open(agentModel('ask_login', {}))
    const requester = await key(plane, 'operator')
    const id = await startRun(server.url, requester, 'log in')
    const sse = await listenSse<any>(`${server.url}/api/runs/${id}/events`, requester)
    const input = await waitingInput(server.url, requester, id)
    // Marked as redaction will treat them, by name or schema: the console's form types them unseen.
    expect(input.requestedSchema.properties).toEqual({
      user: { type: 'string' },
      password: { type: 'string', writeOnly: true },
      pin: { type: 'string', writeOnly: true },
    })
    const answered = await http(server.url, requester, 'POST', `/api/runs/${id}/inputs/${input.id}`, {
      action: 'accept',
      content: { user: 'ada', password: PASSWORD, pin: PIN },
    })
    expect(answered.status).toBe(200)
    const echoed = await answered.text()
    const done = await ended(server.url, requester, id)
    expect(done.steps.find((s: any) => s.kind === 'tool').output).toEqual({ action: 'accept', typed: true })
    const redacted = { user: 'ada', password: '[REDACTED]', pin: '[REDACTED]' }
    expect(done.inputs[0].content).toEqual(redacted)
    expect(done.steps.find((s: any) => s.kind === 'input').output).toMatchObject({ action: 'accept', content: redacted })
    // Another operator reads the run; a follower saw it as it went.
    await waitFor(() => sse.received.some((e) => e.event === 'end'))
    const seen = [echoed, JSON.stringify(await getRun(server.url, await key(plane, 'operator'), id)), JSON.stringify(sse.received)].join('\n')
    expect(seen).not.toContain(PASSWORD)
    expect(seen).not.toContain(PIN)
    await sse.close()
  })

  it('serves a form an older manager stored unmarked with its secret-named fields writeOnly (the input and its step, read and followed)', async () => {
    const location = await database.create()
    const { plane, server } = await open(agentModel('ask_login', {}), {}, location)
    const requester = await key(plane, 'operator')
    const id = await startRun(server.url, requester, 'log in')
    const input = await waitingInput(server.url, requester, id)
    // Stored as a manager from before the marks stores it: the form as the skill declared it.
    const db = await openDatabase(location)
    try {
      await db.db
        .updateTable('run_inputs')
        .set({ requested_schema: JSON.stringify(LOGIN_FORM) })
        .where('id', '=', input.id)
        .execute()
      const step = await db.db
        .selectFrom('agent_run_steps')
        .select(['idx', 'input'])
        .where('run_id', '=', id)
        .where('kind', '=', 'input')
        .executeTakeFirstOrThrow()
      const unmarked = JSON.stringify({ ...JSON.parse(step.input!), requestedSchema: LOGIN_FORM })
      await db.db.updateTable('agent_run_steps').set({ input: unmarked }).where('run_id', '=', id).where('idx', '=', step.idx).execute()
    } finally {
      await db.close()
    }
    const marked = { user: { type: 'string' }, password: { type: 'string', writeOnly: true }, pin: { type: 'string', writeOnly: true } }
    const run = await getRun(server.url, requester, id)
    expect(run.inputs.find((i: any) => i.id === input.id).requestedSchema.properties).toEqual(marked)
    expect(run.steps.find((s: any) => s.kind === 'input').input.requestedSchema.properties).toEqual(marked)
    const sse = await listenSse<any>(`${server.url}/api/runs/${id}/events`, requester)
    await waitFor(() => sse.received.some((e) => e.event === 'step' && e.data.kind === 'input'))
    expect(sse.received.find((e) => e.event === 'step' && e.data.kind === 'input')!.data.input.requestedSchema.properties).toEqual(marked)
    await sse.close()
    await http(server.url, requester, 'POST', `/api/runs/${id}/inputs/${input.id}`, { action: 'decline' })
    await ended(server.url, requester, id)
  })

  it("lets only an admin (or the person it acts for) answer an admin's run: an operator is refused, named why", async () => {
    const { plane, server } = await open(agentModel('ask_name', {}))
    const admin = await key(plane, 'admin')
    const id = await startRun(server.url, admin, 'who?')
    const input = await waitingInput(server.url, admin, id)
    expect(input.approverRole).toBe('admin')
    const path = `/api/runs/${id}/inputs/${input.id}`
    const byOperator = await http(server.url, await key(plane, 'operator'), 'POST', path, { action: 'accept', content: { name: 'Eve' } })
    expect(byOperator.status).toBe(403)
    expect(((await byOperator.json()) as any).error.message).toMatch(/role operator may not answer .*admin, as the run acts for an admin/)
    expect((await http(server.url, await key(plane, 'admin'), 'POST', path, { action: 'accept', content: { name: 'Ada' } })).status).toBe(200)
    expect((await ended(server.url, admin, id)).steps.find((s: any) => s.kind === 'tool').output).toEqual({ action: 'accept', content: { name: 'Ada' } })
    // An operator's run: any operator may answer.
    const other = await open(agentModel('ask_name', {}))
    const k = await key(other.plane, 'operator')
    const id2 = await startRun(other.server.url, k, 'who?')
    const input2 = await waitingInput(other.server.url, k, id2)
    expect(input2.approverRole).toBe('operator')
    const byOther = await http(other.server.url, await key(other.plane, 'operator'), 'POST', `/api/runs/${id2}/inputs/${input2.id}`, { action: 'decline' })
    expect(byOther.status).toBe(200)
    await ended(other.server.url, k, id2)
  })

  it("lets only an admin answer a dangerous tool's input in a run acting for no admin: an operator is refused, named why", async () => {
    const signer = sopSigner()
    const { plane, server } = await open(agentModel('ask_dangerously', {}), { sopKeys: [signer.config] })
    // The agent's own key runs it (no person to limit it to their role): the dangerous call waits for two admins and an SOP.
    const agentKey = await key(plane, 'agent', 'helper')
    const id = await startRun(server.url, agentKey, 'wipe')
    let approvalId: string | null = null
    await waitFor(async () => {
      approvalId = (await getRun(server.url, agentKey, id)).pending?.[0]?.approvalId ?? null
      return approvalId !== null
    })
    const [admin1, admin2] = [await key(plane, 'admin'), await key(plane, 'admin')]
    expect((await http(server.url, admin1, 'POST', '/api/sops', signer.sop({ id: 'wipe-procedure', skills: ['ask_dangerously'] }))).status).toBe(201)
    for (const admin of [admin1, admin2]) {
      expect((await http(server.url, admin, 'POST', `/api/approvals/${approvalId}/approve`, { sopId: 'wipe-procedure' })).status).toBe(200)
    }
    const input = await waitingInput(server.url, admin1, id)
    expect(input).toMatchObject({ tool: 'ask_dangerously', approverRole: 'admin' })
    const path = `/api/runs/${id}/inputs/${input.id}`
    const byOperator = await http(server.url, await key(plane, 'operator'), 'POST', path, { action: 'accept', content: { name: 'Eve' } })
    expect(byOperator.status).toBe(403)
    expect(((await byOperator.json()) as any).error.message).toMatch(/role operator may not answer .*admin, as ask_dangerously is dangerous/)
    expect((await http(server.url, admin2, 'POST', path, { action: 'accept', content: { name: 'Ada' } })).status).toBe(200)
    const done = await ended(server.url, admin1, id)
    expect(done.steps.find((s: any) => s.kind === 'tool' && s.tool === 'ask_dangerously').output).toEqual({ action: 'accept', content: { name: 'Ada' } })
  })

  it("waits for an answer no longer than the call's own deadline when it ends before the approvals wait timeout", async () => {
    const { plane, server } = await open(agentModel('ask_briefly', {}))
    const k = await key(plane, 'operator')
    const id = await startRun(server.url, k, 'who?')
    const input = await waitingInput(server.url, k, id)
    const waits = Date.parse(input.expiresAt) - Date.parse(input.createdAt)
    expect(waits).toBeGreaterThan(0)
    expect(waits).toBeLessThanOrEqual(60_000)
    expect(plane.config.approvals.waitTimeoutMs).toBeGreaterThan(60_000)
    await http(server.url, k, 'POST', `/api/runs/${id}/inputs/${input.id}`, { action: 'decline' })
    await ended(server.url, k, id)
  })

  it('decides two answers that both found the request pending once: the one the database took first wins', async () => {
    const { plane, server } = await open(agentModel('ask_name', {}))
    const k = await key(plane, 'operator')
    const id = await startRun(server.url, k, 'who?')
    const input = await waitingInput(server.url, k, id)
    const run = await plane.runs.get(id)
    const person = { kind: 'user' as const, id: run!.requester.id, name: run!.requester.name, role: 'operator' as const }
    // Both read it pending before either writes: only the database's conditional update tells them apart.
    const answers = await Promise.allSettled([
      plane.runs.answerInput(id, input.id, person, { action: 'accept', content: { name: 'Ada' } }),
      plane.runs.answerInput(id, input.id, person, { action: 'decline' }),
    ])
    expect(answers.map((a) => a.status).sort()).toEqual(['fulfilled', 'rejected'])
    const lost = answers.find((a) => a.status === 'rejected') as PromiseRejectedResult
    expect(lost.reason).toMatchObject({ code: 'conflict', message: expect.stringMatching(/already/) })
    await ended(server.url, k, id)
  })

  it('cancels the request when nobody answers within the approvals wait timeout; an answer after is refused', async () => {
    const { plane, server } = await open(agentModel('ask_name', {}), { approvals: { waitTimeoutMs: 300 } })
    const k = await key(plane, 'operator')
    const id = await startRun(server.url, k, 'who?')
    const run = await ended(server.url, k, id)
    expect(run.steps.find((s: any) => s.kind === 'tool').output).toEqual({ action: 'cancel' })
    expect(run.steps.find((s: any) => s.kind === 'input')).toMatchObject({ status: 'expired', error: expect.stringMatching(/no answer within 300 ms/) })
    const late = await http(server.url, k, 'POST', `/api/runs/${id}/inputs/${run.inputs[0].id}`, { action: 'decline' })
    expect(late.status).toBe(409)
    expect(((await late.json()) as any).error).toMatchObject({ message: expect.stringMatching(/expired/), details: { status: 'expired' } })
  })

  it('offers a URL-mode request as its link: done is accept, without content; a link that is not http(s) is refused', async () => {
    const { plane, server } = await open(agentModel('ask_link', { url: 'https://example.com/sign' }))
    const k = await key(plane, 'admin')
    const id = await startRun(server.url, k, 'sign')
    const input = await waitingInput(server.url, k, id)
    expect(input).toMatchObject({ mode: 'url', url: 'https://example.com/sign', requestedSchema: null })
    const withContent = await http(server.url, k, 'POST', `/api/runs/${id}/inputs/${input.id}`, { action: 'accept', content: { a: 1 } })
    expect(withContent.status).toBe(400)
    expect((await http(server.url, k, 'POST', `/api/runs/${id}/inputs/${input.id}`, { action: 'accept' })).status).toBe(200)
    const run = await ended(server.url, k, id)
    expect(run.steps.find((s: any) => s.kind === 'tool').output).toEqual({ action: 'accept' })

    const other = await open(agentModel('ask_link', { url: 'javascript:alert(1)' }))
    const k2 = await key(other.plane, 'admin')
    const refused = await ended(other.server.url, k2, await startRun(other.server.url, k2, 'sign'))
    expect(refused.steps.find((s: any) => s.kind === 'tool').error).toMatch(/must be http or https/)
    expect(refused.inputs).toEqual([])
  })

  it('takes the answer on another manager sharing the database; once the manager holding the call stops, the request is gone', async () => {
    const location = await database.create()
    const a = await open(agentModel('ask_name', {}, 2), {}, location)
    const b = await open(new MockLanguageModelV3(), {}, location)
    const k = await key(a.plane, 'operator')
    const id = await startRun(a.server.url, k, 'who?')
    const input = await waitingInput(b.server.url, k, id)
    expect((await http(b.server.url, k, 'POST', `/api/runs/${id}/inputs/${input.id}`, { action: 'accept', content: { name: 'Bo' } })).status).toBe(200)
    const run = await ended(a.server.url, k, id)
    expect(run.steps.find((s: any) => s.kind === 'tool').output).toEqual({ action: 'accept', content: { name: 'Bo' } })

    const second = await startRun(a.server.url, k, 'who again?')
    const asked = await waitingInput(b.server.url, k, second)
    await a.server.close()
    await a.plane.close()
    servers.splice(servers.indexOf(a.server), 1)
    planes.splice(planes.indexOf(a.plane), 1)
    const gone = await http(b.server.url, k, 'POST', `/api/runs/${second}/inputs/${asked.id}`, { action: 'decline' })
    expect(gone.status).toBe(409)
    expect(((await gone.json()) as any).error).toMatchObject({ message: expect.stringMatching(/manager holding it stopped/), details: { status: 'gone' } })
  })

  it("answers at most sampling.maxRequestsPerCall of a tool call's sampling requests, each clamped to sampling.maxTokens; the rest are refused, named", async () => {
    const model = agentModel('loop_sample_loop', { times: 8, maxTokens: 100_000 })
    const loop = { name: 'loop', command: process.execPath, args: [SAMPLING_LOOP], agents: ['Helper'] }
    const helper = { ...testAgents![0]!, model, pricing, sampling: { maxRequestsPerCall: 3, maxTokens: 256 } }
    const { plane, server } = await open(model, { agents: [helper, testAgents![1]!], mcpServers: [loop] as never })
    const k = await key(plane, 'operator')
    const run = await ended(server.url, k, await startRun(server.url, k, 'loop'))
    expect(run.status).toBe('completed')
    const tool = run.steps.find((s: any) => s.kind === 'tool')
    expect(tool.output.structuredContent).toMatchObject({
      answered: 3,
      refused: 5,
      firstRefusal: expect.stringMatching(/at most 3 sampling requests per tool call \(sampling\.maxRequestsPerCall\)/),
    })
    expect(model.doGenerateCalls.map((c) => c.maxOutputTokens)).toEqual([256, 256, 256])
    expect(run.steps.filter((s: any) => s.kind === 'sampling')).toHaveLength(3)
  })

  it('with the reference everything server imported: its sampling is answered by the run model, its elicitation by a person over HTTP', async () => {
    const model = new MockLanguageModelV3({
      doStream: [
        streamed(callsTool('every_trigger_sampling_request', { prompt: 'What is 2+2?', maxTokens: 20 }, 'call-1')),
        streamed(callsTool('every_trigger_elicitation_request', {}, 'call-2')),
        streamed(says('done')),
      ],
      doGenerate: { ...says('four', { input: 40, output: 3 }), response: { modelId: 'mock-sampler' } } as never,
    })
    const { plane, server } = await open(model, { mcpServers: [everything] as never })
    const k = await key(plane, 'operator')
    const id = await startRun(server.url, k, 'ask the server')
    const input = await waitingInput(server.url, k, id)
    expect(input).toMatchObject({ tool: 'every_trigger_elicitation_request', message: 'Please provide inputs for the following fields:' })
    // The server's own schema checks the answer: its integer is from 1 to 100.
    const bad = await http(server.url, k, 'POST', `/api/runs/${id}/inputs/${input.id}`, { action: 'accept', content: { name: 'Ada', integer: 500 } })
    expect(bad.status).toBe(400)
    expect(((await bad.json()) as any).error.message).toMatch(/\/integer: must be <= 100/)
    const ok = await http(server.url, k, 'POST', `/api/runs/${id}/inputs/${input.id}`, { action: 'accept', content: { name: 'Ada', check: true, integer: 7 } })
    expect(ok.status).toBe(200)
    const run = await ended(server.url, k, id)
    expect(run.status).toBe('completed')
    const [sampled, elicited] = run.steps.filter((s: any) => s.kind === 'tool')
    expect(JSON.stringify(sampled.output)).toContain('"text\\": \\"four\\"')
    expect(model.doGenerateCalls[0]!.prompt).toEqual([
      { role: 'system', content: 'You are a helpful test server.' },
      { role: 'user', content: [{ type: 'text', text: 'Resource trigger-sampling-request context: What is 2+2?' }], providerOptions: undefined },
    ])
    expect(model.doGenerateCalls[0]).toMatchObject({ maxOutputTokens: 20, temperature: 0.7 })
    expect(JSON.stringify(elicited.output)).toContain('- Name: Ada')
    expect(JSON.stringify(elicited.output)).toContain('- Favorite Integer: 7')
    expect(run.steps.find((s: any) => s.kind === 'sampling')).toMatchObject({
      tool: 'every_trigger_sampling_request',
      usage: { inputTokens: 40, outputTokens: 3 },
    })
    expect(run.totals.inputTokens).toBe(40 + 3)
    // The audit sees what the server received, as a sub-span of its call.
    const tree = (await plane.audit.tree({ callId: elicited.callId }))!
    expect(tree.spans.find((s: any) => s.kind === 'elicitation')).toMatchObject({
      elicitation: { action: 'accept', content: { name: 'Ada', check: true, integer: 7 } },
    })
  })
})
