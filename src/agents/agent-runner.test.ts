import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { MockLanguageModelV3 } from 'ai/test'
import { callsTool, says, scripted, streamed } from '../test-support/mock-model.js'
import { databases, waitFor } from '../test-support/databases.js'
import { admin, agentCaller, openTestPlane, operator, testAgents, testSkills } from '../test-support/fixtures.js'
import { defineSkill } from '../skill/index.js'
import { z } from 'zod'
import type { Skillplane } from './index.js'
import type { AgentConfig } from '../config/define-config.js'
import type { TestRunResult } from './test-run.js'
import { openDatabase } from '../store/open-database.js'
import { RunRepository } from '../store/run-repository.js'
import { agentCaller as runAs } from '../registry/agent-id.js'
import { approvalFor } from '../runtime/index.js'
import { workSteps } from '../test-support/run-steps.js'

describe.each(databases)('agent runs on $name', (database) => {
  const planes: Skillplane[] = []
  afterEach(async () => {
    await Promise.all(planes.splice(0).map((p) => p.close()))
  })
  /** A plane whose Helper agent runs on a scripted mock model. */
  const open = async (model: MockLanguageModelV3 | AgentConfig['model'], extra: Partial<AgentConfig> = {}) => {
    const plane = await openTestPlane(database, { agents: [{ ...testAgents![0]!, model, systemPrompt: 'You help.', ...extra }, testAgents![1]!] })
    planes.push(plane)
    return plane
  }

  it('runs a tool loop with the agent’s skills and stores each step linked to its audit row', async () => {
    const model = scripted(callsTool('echo', { message: 'hi' }), says('echo said hi'))
    const plane = await open(model)
    const run = await plane.runs.start({ agent: 'helper', prompt: 'say hi', requester: admin })
    expect(run).toMatchObject({ status: 'completed', output: 'echo said hi', agent: 'helper', requester: { name: 'alice' } })
    const [tool, text] = workSteps(run)
    expect(tool).toMatchObject({ kind: 'tool', tool: 'echo', input: { message: 'hi' }, status: 'ok', output: { message: 'hi', count: 1 } })
    expect(text).toMatchObject({ kind: 'text', text: 'echo said hi' })
    expect(await plane.audit.get(tool!.callId!)).toMatchObject({ skill: 'echo', caller: { kind: 'agent' }, agent: 'helper', conversationId: `run:${run.id}` })
    // The model got the agent's system prompt and only its bound skills as tools.
    const call = model.doStreamCalls[0]!
    expect(JSON.stringify(call.prompt[0])).toContain('You help.')
    expect(call.tools!.map((t) => t.name).sort()).toEqual(['echo', 'parent_call', 'wipe_things', 'write_thing'])
    expect((await plane.runs.list({ agent: 'Helper', limit: 10 })).items.map((r) => r.id)).toEqual([run.id])
  })

  it('pauses for approval, resumes when it is approved, and goes on without the call when it is rejected', async () => {
    const model = scripted(
      callsTool('write_thing', { value: 'v1' }),
      says('stored v1'),
      callsTool('write_thing', { value: 'v2' }, 'call-2'),
      says('could not store v2'),
    )
    const plane = await open(model)
    const paused = await plane.runs.start({ agent: 'helper', prompt: 'store v1', requester: operator })
    expect(paused).toMatchObject({ status: 'awaiting_approval', pending: [{ tool: 'write_thing', approvalId: expect.any(String) }] })
    expect(workSteps(paused)).toMatchObject([{ tool: 'write_thing', status: 'awaiting_approval' }])
    const approvalId = paused.pending[0]!.approvalId!
    expect(await plane.approvals.get(approvalId)).toMatchObject({ status: 'pending', skill: 'write_thing', requester: { kind: 'agent' } })

    await plane.approvals.decide({ id: approvalId, caller: admin, decision: 'approve' })
    await waitFor(async () => (await plane.runs.get(paused.id))!.status === 'completed')
    const done = (await plane.runs.get(paused.id))!
    expect(done).toMatchObject({ output: 'stored v1', pending: [] })
    expect(workSteps(done)[0]).toMatchObject({ status: 'ok', output: { stored: 'v1' }, callId: expect.any(String) })
    expect(await plane.approvals.get(approvalId)).toMatchObject({ status: 'executed' })

    const second = await plane.runs.start({ agent: 'helper', prompt: 'store v2', requester: operator })
    await plane.approvals.decide({ id: second.pending[0]!.approvalId!, caller: admin, decision: 'reject', comment: 'not now' })
    await waitFor(async () => (await plane.runs.get(second.id))!.status === 'completed')
    const rejected = (await plane.runs.get(second.id))!
    expect(rejected.output).toBe('could not store v2')
    expect(workSteps(rejected)[0]).toMatchObject({ tool: 'write_thing', status: 'denied', error: expect.stringContaining('rejected') })
    expect((await plane.audit.query({ skill: 'write_thing', status: 'ok', limit: 10 })).items).toHaveLength(1)
  })

  it('gives an agent with more skills than the threshold a core set, and the tools it finds for its next steps, across a pause', async () => {
    const model = scripted(
      callsTool('discover_skills', { query: 'return the message', limit: 1 }),
      callsTool('echo', { message: 'found' }, 'call-2'),
      callsTool('discover_skills', { query: 'a mutating skill', limit: 1 }, 'call-3'),
      callsTool('write_thing', { value: 'v1' }, 'call-4'),
      says('stored'),
    )
    const plane = await openTestPlane(database, {
      discovery: { toolThreshold: 3 },
      agents: [{ ...testAgents![0]!, model, systemPrompt: 'You help.' }, testAgents![1]!],
    })
    planes.push(plane)
    const paused = await plane.runs.start({ agent: 'helper', prompt: 'echo, then store v1', requester: admin })
    expect(workSteps(paused)).toMatchObject([
      { tool: 'discover_skills', status: 'ok' },
      { tool: 'echo', status: 'ok', output: { message: 'found', count: 1 } },
      { tool: 'discover_skills', status: 'ok' },
      { tool: 'write_thing', status: 'awaiting_approval' },
    ])
    await plane.approvals.decide({ id: paused.pending[0]!.approvalId!, caller: operator, decision: 'approve' })
    await waitFor(async () => (await plane.runs.get(paused.id))!.status === 'completed')
    expect((await plane.runs.get(paused.id))!.output).toBe('stored')
    // Each step offered the core set and what was found before it; the resumed run still had both finds.
    const offered = model.doStreamCalls.map((call) => call.tools!.map((t) => t.name).sort())
    expect(offered).toEqual([
      ['discover_skills'],
      ['discover_skills', 'echo'],
      ['discover_skills', 'echo'],
      ['discover_skills', 'echo', 'write_thing'],
      ['discover_skills', 'echo', 'write_thing'],
    ])
    expect(JSON.stringify(model.doStreamCalls[0]!.prompt[0])).toContain('You have more tools than are shown to you')
  })

  it('makes the agent do no more than the person who started the run, who may not approve its calls', async () => {
    const model = scripted(callsTool('write_thing', { value: 'a' }), says('ok'), callsTool('write_thing', { value: 'b' }, 'c2'), says('stored b'))
    const plane = await open(model)
    await plane.policies.set({ skill: 'write_thing', level: 'user', subject: operator.id, decision: 'DENY' }, admin, plane.now())
    const denied = await plane.runs.start({ agent: 'helper', prompt: 'store a', requester: operator })
    // Denied for the person, it is not among the run's tools; called anyway, the pipeline refuses it.
    expect(workSteps(denied)[0]).toMatchObject({ tool: 'write_thing', status: 'error', error: expect.stringContaining("unavailable tool 'write_thing'") })
    expect(await plane.invoke('write_thing', { value: 'a' }, { caller: agentCaller('helper'), onBehalfOf: operator })).toMatchObject({
      ok: false,
      error: { code: 'denied', message: expect.stringContaining(`denied for ${operator.name}, on whose behalf the agent acts`) },
    })

    await plane.policies.set({ skill: 'write_thing', level: 'user', subject: operator.id, decision: 'ALWAYS' }, admin, plane.now())
    const paused = await plane.runs.start({ agent: 'helper', prompt: 'store b', requester: operator })
    const approvalId = paused.pending[0]!.approvalId!
    expect(await plane.approvals.get(approvalId)).toMatchObject({ onBehalfOf: { id: operator.id } })
    expect(await plane.approvals.decide({ id: approvalId, caller: operator, decision: 'approve' })).toMatchObject({
      ok: false,
      code: 'denied',
      message: expect.stringContaining('another person must approve it'),
    })
    await plane.approvals.decide({ id: approvalId, caller: admin, decision: 'approve' })
    await waitFor(async () => (await plane.runs.get(paused.id))!.status === 'completed')
    expect((await plane.runs.get(paused.id))!.output).toBe('stored b')
  })

  it('fails a run whose model fails, and refuses to start one without a usable model', async () => {
    const broken = new MockLanguageModelV3({
      doStream: async () => {
        throw new Error('the model is down')
      },
    })
    const plane = await open(broken)
    expect(await plane.runs.start({ agent: 'helper', prompt: 'x', requester: admin })).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('the model is down'),
    })
    await expect(plane.runs.start({ agent: 'Other', prompt: 'x', requester: admin })).rejects.toThrow('agent "Other" has no model')
    await expect(plane.runs.start({ agent: 'nobody', prompt: 'x', requester: admin })).rejects.toThrow('no agent "nobody" in the config')

    delete process.env.SKILLPLANE_TEST_NO_SUCH_KEY
    const keyless = await open({ provider: 'openai', model: 'gpt-4.1-mini', apiKeyEnv: 'SKILLPLANE_TEST_NO_SUCH_KEY' })
    await expect(keyless.runs.start({ agent: 'helper', prompt: 'x', requester: admin })).rejects.toThrow(
      'the environment variable SKILLPLANE_TEST_NO_SUCH_KEY holding the openai API key is not set',
    )
    expect((await keyless.runs.list({ limit: 5 })).items).toEqual([])
  })

  it('test-runs an agent with in-memory changes and gives a verdict', async () => {
    const model = scripted(
      callsTool('echo', { message: 'hi' }),
      says('done'),
      says('nothing to do'),
      callsTool('echo', { message: '' }, 'bad'),
      says('that failed'),
      callsTool('write_thing', { value: 'x' }, 'ask'),
    )
    const plane = await open(model)
    // Test runs go through the test_run skill: gated and audited like any call.
    const testRun = async (input: object) => {
      const envelope = await plane.invoke('test_run', input, { caller: admin })
      if (!envelope.ok) throw new Error(`${envelope.error.code}: ${envelope.error.message}`)
      return envelope.data as TestRunResult
    }
    const pass = await testRun({ agent: 'helper', input: 'say hi', expectTool: 'echo', set: { systemPrompt: 'Test prompt.' } })
    expect(pass).toMatchObject({ verdict: 'pass', output: 'done', tools: [{ name: 'echo', called: true, ok: true }], approvals: [] })
    expect(JSON.stringify(model.doStreamCalls[0]!.prompt[0])).toContain('Test prompt.')
    // Never saved: the config and the next run keep the agent as configured.
    expect(plane.config.agents[0]!.systemPrompt).toBe('You help.')
    expect(await plane.runs.get(pass.runId)).toMatchObject({ test: true, overrides: { systemPrompt: 'Test prompt.' } })

    expect((await plane.audit.query({ skill: 'test_run', limit: 5 })).items).toMatchObject([{ status: 'ok', caller: { name: admin.name } }])
    expect(await testRun({ agent: 'helper', input: 'x', expectTool: 'write_thing' })).toMatchObject({
      verdict: 'incomplete',
      tools: [{ name: 'write_thing', called: false, ok: false }],
    })
    expect(await testRun({ agent: 'helper', input: 'x' })).toMatchObject({ verdict: 'failed', reason: expect.stringContaining('tool echo failed') })
    const paused = await testRun({ agent: 'helper', input: 'x', expectTool: 'write_thing' })
    expect(paused).toMatchObject({ verdict: 'unconfirmed', approvals: [{ tool: 'write_thing', approvalId: expect.any(String) }] })
    // The test run is over: its request leaves the inbox instead of waiting there until it expires.
    const withdrawnId = (paused as { approvals: Array<{ approvalId: string }> }).approvals[0]!.approvalId
    expect(await plane.approvals.get(withdrawnId)).toMatchObject({ status: 'withdrawn', decidedAt: expect.any(String) })
    expect((await plane.approvals.list({ status: 'pending', limit: 10 })).items.map((a) => a.id)).not.toContain(withdrawnId)
    expect(await plane.approvals.decide({ id: withdrawnId, decision: 'approve', caller: admin })).toMatchObject({
      ok: false,
      code: 'conflict',
      message: expect.stringContaining(`is withdrawn since`),
    })
    // Nor can the agent's own call use it, with the very input it asked for.
    const request = (await plane.approvals.get(withdrawnId))!
    const claimed = await plane.invoke('write_thing', request.input, {
      caller: runAs('helper', 'Helper'),
      conversationId: request.conversationId ?? undefined,
      approval: approvalFor(withdrawnId, undefined),
    })
    expect(claimed).toMatchObject({ ok: false, error: { code: 'denied', message: expect.stringContaining('was withdrawn') } })
    const events = (await plane.audit.events.list({ subject: `approval:${withdrawnId}`, limit: 10 })).items
    expect(events.find((e) => e.kind === 'approval.withdrawn')).toMatchObject({
      actor: { id: 'system' },
      details: { reason: expect.stringContaining('ended at this approval') },
    })
    await expect(testRun({ agent: 'helper', input: 'x', set: { temperature: '2' } })).rejects.toThrow(
      'invalid_input: --set temperature: not a setting a test run can change',
    )
  })

  it('redacts secrets in stored steps as the audit log does', async () => {
    const model = scripted(callsTool('use_token', { token: 'hunter2-secret', note: 'hi' }), says('done'))
    const useToken = defineSkill({
      key: 'use_token',
      description: 'Uses a token',
      class: 'safe',
      agents: ['Helper'],
      input: z.object({ token: z.string(), note: z.string() }),
      run: ({ token, note }) => ({ note, said: `used ${token}` }),
    })
    const setPassword = defineSkill({
      key: 'set_password',
      description: 'Sets a password',
      class: 'mutating',
      agents: ['Helper'],
      input: z.object({ user: z.string(), password: z.string() }),
      run: ({ user, password }) => ({ said: `password of ${user} is now ${password}` }),
    })
    const plane = await openTestPlane(database, { skills: [...testSkills(), useToken, setPassword], agents: [{ ...testAgents![0]!, model }] })
    planes.push(plane)
    const run = await plane.runs.start({ agent: 'helper', prompt: 'x', requester: admin })
    expect(workSteps(run)[0]).toMatchObject({ input: { token: '[REDACTED]', note: 'hi' }, output: { note: 'hi', said: 'used [REDACTED]' } })
    expect(JSON.stringify(run)).not.toContain('hunter2-secret')

    // After a pause for approval too, when only the redacted input was stored.
    model.doStream = (() => {
      const script = [callsTool('set_password', { user: 'bob', password: 'Sup3rSecretPw' }, 'pw'), says('changed')]
      return async () => streamed(script.shift()!)
    })()
    const paused = await plane.runs.start({ agent: 'helper', prompt: 'change it', requester: operator })
    await plane.approvals.decide({ id: paused.pending[0]!.approvalId!, caller: admin, decision: 'approve' })
    await waitFor(async () => (await plane.runs.get(paused.id))!.status === 'completed')
    const resumed = (await plane.runs.get(paused.id))!
    expect(workSteps(resumed)[0]).toMatchObject({
      status: 'ok',
      input: { user: 'bob', password: '[REDACTED]' },
      output: { said: 'password of bob is now [REDACTED]' },
    })
    expect(JSON.stringify(resumed)).not.toContain('Sup3rSecretPw')
  })

  it('fails runs a stopped manager left running, when the next manager starts', async () => {
    const location = await database.create()
    const db = await openDatabase(location)
    const now = new Date().toISOString()
    await new RunRepository(db.db).insert({
      id: '01ORPHAN00000000000000000A',
      agent_id: 'helper',
      requester_id: 'u',
      requester_name: 'u',
      requester_kind: 'user',
      requester_role: 'admin',
      status: 'running',
      prompt: 'x',
      output: null,
      error: null,
      trace_id: null,
      messages: '[]',
      pending: null,
      test: 0,
      overrides: null,
      manager_id: 'a-manager-that-died',
      model_steps: 0,
      created_at: now,
      updated_at: now,
      finished_at: null,
    })
    // It died during a model call.
    const step = { run_id: '01ORPHAN00000000000000000A', idx: 0, kind: 'model', status: 'running', created_at: now, started_at: now, step_number: 1 }
    await db.db
      .insertInto('agent_run_steps')
      .values({ ...step, rev: 1 })
      .execute()
    await db.close()
    const plane = await openTestPlane(database, { agents: [{ ...testAgents![0]!, model: new MockLanguageModelV3() }] }, location)
    planes.push(plane)
    expect(await plane.runs.get('01ORPHAN00000000000000000A')).toMatchObject({
      status: 'failed',
      error: 'interrupted: the manager driving the run stopped',
      steps: [{ kind: 'model', status: 'error', error: 'interrupted: the manager driving the run stopped', finishedAt: expect.any(String) }],
    })
  })

  it('offers test_run as a skill, which a test run itself may not use', async () => {
    const model = scripted(callsTool('echo', { message: 'hi' }), says('ok'))
    const plane = await open(model)
    const result = await plane.invoke('test_run', { agent: 'helper', input: 'say hi', expectTool: 'echo' }, { caller: admin })
    expect(result).toMatchObject({ ok: true, data: { verdict: 'pass' } })
    const nested = await plane.invoke('test_run', { agent: 'helper', input: 'again' }, { caller: admin, conversationId: 'test-run:01ABC' })
    expect(nested).toMatchObject({ ok: false, error: { code: 'denied', message: 'a test run cannot start another test run' } })
    expect(await plane.invoke('test_run', { agent: 'ghost', input: 'x' }, { caller: admin })).toMatchObject({ ok: false, error: { code: 'not_found' } })
  })
})

describe('model providers', () => {
  const planes: Skillplane[] = []
  afterEach(async () => {
    await Promise.all(planes.splice(0).map((p) => p.close()))
  })

  /** A fake provider endpoint on 127.0.0.1 that records requests and streams `events` back (server-sent events). */
  async function fakeProvider(
    events: unknown[],
  ): Promise<{ url: string; requests: Array<{ path: string; headers: IncomingMessage['headers']; body: any }>; close(): void }> {
    const requests: Array<{ path: string; headers: IncomingMessage['headers']; body: any }> = []
    const server = createServer((req, res) => {
      let raw = ''
      req.on('data', (chunk) => (raw += chunk))
      req.on('end', () => {
        requests.push({ path: req.url!, headers: req.headers, body: JSON.parse(raw) })
        res
          .writeHead(200, { 'content-type': 'text/event-stream' })
          .end(events.map((e) => `data: ${typeof e === 'string' ? e : JSON.stringify(e)}\n\n`).join(''))
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests, close: () => server.close() }
  }

  const chunk = (delta: object, finish: string | null) => ({
    id: 'c1',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'm',
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...(finish && { usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }),
  })

  it.each([
    {
      provider: 'openai-compatible' as const,
      keyHeader: (h: IncomingMessage['headers']) => h.authorization,
      events: [chunk({ role: 'assistant', content: 'hello ' }, null), chunk({ content: 'from the fake' }, null), chunk({}, 'stop'), '[DONE]'],
      path: '/v1/chat/completions',
      tools: (body: any) => body.tools.map((t: any) => t.function.name),
      expectedKey: 'Bearer sk-fake',
    },
    {
      provider: 'anthropic' as const,
      keyHeader: (h: IncomingMessage['headers']) => h['x-api-key'],
      events: [
        {
          type: 'message_start',
          message: {
            id: 'm1',
            type: 'message',
            role: 'assistant',
            model: 'm',
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { input_tokens: 1, output_tokens: 1 },
          },
        },
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'hello ' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'from the fake' } },
        { type: 'content_block_stop', index: 0 },
        { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 1 } },
        { type: 'message_stop' },
      ],
      path: '/v1/messages',
      tools: (body: any) => body.tools.map((t: any) => t.name),
      expectedKey: 'sk-fake',
    },
  ])('wires $provider up to the HTTP request, with the key from the environment', async (c) => {
    const fake = await fakeProvider(c.events)
    try {
      process.env.SKILLPLANE_TEST_PROVIDER_KEY = 'sk-fake'
      const plane = await openTestPlane(databases[0]!, {
        agents: [{ ...testAgents![0]!, model: { provider: c.provider, model: 'the-model', baseURL: fake.url, apiKeyEnv: 'SKILLPLANE_TEST_PROVIDER_KEY' } }],
      })
      planes.push(plane)
      const run = await plane.runs.start({ agent: 'helper', prompt: 'hello', requester: admin })
      expect(run).toMatchObject({ status: 'completed', output: 'hello from the fake' })
      const [request] = fake.requests
      expect(request).toMatchObject({ path: c.path, body: { model: 'the-model', stream: true } })
      expect(c.keyHeader(request!.headers)).toBe(c.expectedKey)
      expect(c.tools(request!.body).sort()).toEqual(['echo', 'parent_call', 'wipe_things', 'write_thing'])
    } finally {
      fake.close()
      delete process.env.SKILLPLANE_TEST_PROVIDER_KEY
    }
  })
})
