import { afterEach, describe, expect, it } from 'vitest'
import { generateText, stepCountIs, type ModelMessage } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { callsTool, says } from '../test-support/mock-model.js'
import { databases, waitFor } from '../test-support/databases.js'
import { admin, agentCaller, openTestPlane } from '../test-support/fixtures.js'
import type { Plane } from '../plane/index.js'
import type { SkillplaneConfig } from '../config/index.js'
import { toAISDKToolLoop, toAISDKTools, toAnthropicTools, toOpenAITools } from './index.js'

const [sqlite] = databases

describe('tool adapters', () => {
  const planes: Plane[] = []
  afterEach(async () => {
    await Promise.all(planes.splice(0).map((p) => p.close()))
  })
  const open = async (config: SkillplaneConfig = {}) => {
    const plane = await openTestPlane(sqlite!, config)
    planes.push(plane)
    return plane
  }
  const helper = agentCaller('helper')

  it('gives the AI SDK the agent’s skills and runs its tool calls through the pipeline', async () => {
    const plane = await open()
    const tools = toAISDKTools(plane, { caller: helper, conversationId: 'conv-1' })
    expect(Object.keys(tools).sort()).toEqual(['echo', 'parent_call', 'wipe_things', 'write_thing'])
    const model = new MockLanguageModelV3({ doGenerate: [callsTool('echo', { message: 'hi' }), says('echoed')] })
    const result = await generateText({ model, tools, prompt: 'say hi', stopWhen: stepCountIs(5) })
    expect(result.text).toBe('echoed')
    expect(result.steps[0]!.toolResults).toMatchObject([{ toolName: 'echo', output: { message: 'hi', count: 1 } }])
    // The model saw the tool's JSON Schema, and the result went back to it.
    const offered = model.doGenerateCalls[0]!.tools!.find((t) => t.name === 'echo')
    expect(offered).toMatchObject({ type: 'function', inputSchema: { type: 'object', required: ['message'] } })
    expect(JSON.stringify(model.doGenerateCalls[1]!.prompt)).toContain('"message":"hi"')
    const { items } = await plane.audit.query({ skill: 'echo', limit: 5 })
    expect(items).toMatchObject([{ status: 'ok', caller: { kind: 'agent' }, agent: 'helper', conversationId: 'conv-1' }])

    // A bad input and a failing call come back to the model as tool errors naming the code.
    const bad = await generateText({
      model: new MockLanguageModelV3({ doGenerate: [callsTool('echo', { message: 42 }), says('sorry')] }),
      tools,
      prompt: 'x',
      stopWhen: stepCountIs(3),
    })
    expect(JSON.stringify(bad.steps[0]!.content)).toMatch(/tool-error/)
  })

  it('acts as an agent named by id, name or alias, and refuses an unknown agent instead of offering no tools', async () => {
    const plane = await open()
    expect(Object.keys(toAISDKTools(plane, { agent: 'Helper' })).sort()).toEqual(['echo', 'parent_call', 'wipe_things', 'write_thing'])
    expect(
      toOpenAITools(plane, { agent: 'helper' })
        .tools.map((t) => t.function.name)
        .sort(),
    ).toEqual(['echo', 'parent_call', 'wipe_things', 'write_thing'])
    const unknown = /^unknown agent "(helpr|ghost)": the config's agents are "helper", "other"$/
    expect(() => toAISDKTools(plane, { agent: 'helpr' })).toThrow(unknown)
    expect(() => toOpenAITools(plane, { caller: agentCaller('ghost') })).toThrow(unknown)
    expect(() => toAnthropicTools(plane, { caller: admin, agent: 'ghost' })).toThrow(unknown)
    expect(() => toAISDKTools(plane, {})).toThrow('a tool adapter needs a caller, or an agent to act as')
  })

  it('maps ASK to the AI SDK approval flow, and the app user’s approval to a skillplane decision', async () => {
    const plane = await open()
    const tools = toAISDKTools(plane, { caller: helper, approver: admin })
    const first = await generateText({ model: new MockLanguageModelV3({ doGenerate: [callsTool('write_thing', { value: 'v1' })] }), tools, prompt: 'store v1' })
    const request = first.content.find((part) => part.type === 'tool-approval-request')
    expect(request).toMatchObject({ toolCall: { toolName: 'write_thing' } })
    // Nothing ran; skillplane's request is filed, and the app asks its user.
    expect((await plane.audit.query({ skill: 'write_thing', limit: 5 })).items).toMatchObject([{ status: 'approval_required' }])
    expect((await plane.approvals.list({ status: 'pending', limit: 5 })).items).toHaveLength(1)

    const messages: ModelMessage[] = [
      { role: 'user', content: 'store v1' },
      ...first.response.messages,
      { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: (request as { approvalId: string }).approvalId, approved: true }] },
    ]
    const second = await generateText({ model: new MockLanguageModelV3({ doGenerate: [says('stored')] }), tools, messages })
    expect(second.text).toBe('stored')
    expect(JSON.stringify(second.response.messages)).toContain('"stored":"v1"')
    const [approval] = (await plane.approvals.list({ skill: 'write_thing', limit: 5 })).items
    expect(approval).toMatchObject({ status: 'executed', decisions: [{ approver: { name: 'alice' }, decision: 'approve' }] })
  })

  it('asks skillplane’s gate for these arguments: the skill’s own rule decides, and a check that passes leaves no trace', async () => {
    const plane = await open()
    const needsApproval = toAISDKTools(plane, { caller: admin }).bulk_delete!.needsApproval as unknown as (
      input: unknown,
      options: { toolCallId: string; messages: [] },
    ) => Promise<boolean>
    const ids = (n: number) => ({ ids: Array.from({ length: n }, (_, i) => `id${i}`) })
    expect(await needsApproval(ids(2), { toolCallId: 'a', messages: [] })).toBe(false)
    expect((await plane.audit.query({ skill: 'bulk_delete', limit: 5 })).items).toEqual([])
    expect(await needsApproval(ids(11), { toolCallId: 'b', messages: [] })).toBe(true)
    expect((await plane.approvals.list({ status: 'pending', limit: 5 })).items).toMatchObject([
      { skill: 'bulk_delete', reason: 'a batch of 11 items exceeds the limit of 10' },
    ])
    // Asking again finds the same request instead of filing another.
    expect(await needsApproval(ids(11), { toolCallId: 'c', messages: [] })).toBe(true)
    expect((await plane.approvals.list({ limit: 5 })).items).toHaveLength(1)
  })

  it('without an approver, an approved AI SDK call waits for skillplane’s approvers and resumes on the next call', async () => {
    const plane = await open()
    const tools = toAISDKTools(plane, { caller: helper })
    const execute = tools.write_thing!.execute!
    const run = () => Promise.resolve(execute({ value: 'v2' }, { toolCallId: 't1', messages: [] }))
    await expect(run()).rejects.toMatchObject({
      name: 'SkillCallError',
      code: 'approval_required',
      message: expect.stringContaining('a human must approve request'),
    })
    const [pending] = (await plane.approvals.list({ status: 'pending', limit: 5 })).items
    await expect(run()).rejects.toMatchObject({ approvalId: pending!.id })
    await plane.approvals.decide({ id: pending!.id, caller: admin, decision: 'approve' })
    await expect(run()).resolves.toEqual({ stored: 'v2' })
  })

  it('gives OpenAI and Anthropic tool JSON and runs their tool calls', async () => {
    const plane = await open()
    const openai = toOpenAITools(plane, { caller: helper })
    expect(openai.tools.map((t) => t.function.name).sort()).toEqual(['echo', 'parent_call', 'wipe_things', 'write_thing'])
    expect(openai.tools.find((t) => t.function.name === 'echo')).toMatchObject({
      type: 'function',
      function: { parameters: { type: 'object', required: ['message'] } },
    })
    expect(await openai.dispatch({ id: 'c1', type: 'function', function: { name: 'echo', arguments: '{"message":"hi"}' } })).toEqual({
      role: 'tool',
      tool_call_id: 'c1',
      content: '{"message":"hi","count":1}',
    })
    expect((await openai.dispatch({ id: 'c2', function: { name: 'echo', arguments: '{"message":' } })).content).toMatch(
      /^invalid_input: the tool arguments are not JSON/,
    )
    expect((await openai.dispatch({ id: 'c3', function: { name: 'explode', arguments: '{}' } })).content).toBe('not_found: no tool "explode" for this caller')
    expect((await openai.dispatch({ id: 'c4', function: { name: 'write_thing', arguments: '{"value":"x"}' } })).content).toMatch(
      /^approval_required: .*request \w+/,
    )

    const anthropic = toAnthropicTools(plane, { caller: admin })
    expect(anthropic.tools.find((t) => t.name === 'remote_thing')).toMatchObject({ input_schema: { required: ['edge_id'] } })
    expect(await anthropic.dispatch({ type: 'tool_use', id: 'u1', name: 'echo', input: { message: 'yo' } })).toEqual({
      type: 'tool_result',
      tool_use_id: 'u1',
      content: '{"message":"yo","count":1}',
    })
    expect(await anthropic.dispatch({ id: 'u2', name: 'explode', input: {} })).toMatchObject({
      is_error: true,
      content: expect.stringContaining('executor_error'),
    })
    expect(await anthropic.dispatch({ id: 'u3', name: 'echo', input: [1] })).toMatchObject({
      is_error: true,
      content: 'invalid_input: the tool arguments must be a JSON object',
    })
  })

  describe('large catalogs (the Helper agent may call 4 skills: past a threshold of 3)', () => {
    const offered = (model: MockLanguageModelV3) => model.doGenerateCalls.map((call) => call.tools!.map((t) => t.name).sort())

    it('AI SDK: the model starts with the core set, and each tool discover_skills finds is active from the next step on', async () => {
      const plane = await open({ discovery: { toolThreshold: 3 } })
      const loop = toAISDKToolLoop(plane, { caller: helper, conversationId: 'conv-d' })
      // Every tool is in the set (a found one must be callable), but only the core set is active.
      expect(Object.keys(loop.tools).sort()).toEqual(['discover_skills', 'echo', 'parent_call', 'wipe_things', 'write_thing'])
      expect(loop.activeTools).toEqual(['discover_skills'])
      const model = new MockLanguageModelV3({
        doGenerate: [callsTool('discover_skills', { query: 'return the message', limit: 1 }), callsTool('echo', { message: 'found' }, 'call-2'), says('done')],
      })
      const result = await generateText({ model, ...loop, prompt: 'echo found', stopWhen: stepCountIs(5) })
      expect(result.text).toBe('done')
      expect(offered(model)).toEqual([['discover_skills'], ['discover_skills', 'echo'], ['discover_skills', 'echo']])
      expect(result.steps[1]!.toolResults).toMatchObject([{ toolName: 'echo', output: { message: 'found', count: 1 } }])

      // The next turn carries the conversation, and with it what was found; a tool never found stays out of reach.
      const next = new MockLanguageModelV3({ doGenerate: [callsTool('wipe_things', { count: 1 }, 'call-3'), says('could not')] })
      const messages: ModelMessage[] = [{ role: 'user', content: 'echo found' }, ...result.response.messages, { role: 'user', content: 'now wipe' }]
      const second = await generateText({ model: next, ...loop, messages, stopWhen: stepCountIs(5) })
      expect(offered(next)[0]).toEqual(['discover_skills', 'echo'])
      expect(second.steps[0]!.content).toMatchObject([
        { type: 'tool-call', toolName: 'wipe_things', invalid: true },
        { type: 'tool-error', toolName: 'wipe_things' },
      ])
      expect((await plane.audit.query({ skill: 'wipe_things', limit: 5 })).items).toEqual([])
    })

    it('AI SDK: a new loop starts with the caller’s most used skills; discovery can be forced on or off', async () => {
      const plane = await open({ discovery: { toolThreshold: 3 } })
      for (const message of ['a', 'b']) expect(await plane.invoke('echo', { message }, { caller: helper })).toMatchObject({ ok: true })
      await waitFor(async () => (await plane.audit.query({ caller: helper.id, status: 'ok', limit: 5 })).items.length === 2)
      const model = new MockLanguageModelV3({ doGenerate: [says('hello')] })
      await generateText({ model, ...toAISDKToolLoop(plane, { caller: helper }), prompt: 'hi' })
      expect(offered(model)).toEqual([['discover_skills', 'echo']])

      const off = toAISDKToolLoop(plane, { caller: helper, discovery: false })
      expect(off).toEqual({ tools: expect.any(Object), experimental_repairToolCall: expect.any(Function) })
      expect(Object.keys(off.tools).sort()).toEqual(['echo', 'parent_call', 'wipe_things', 'write_thing'])
      const small = await open()
      expect(toAISDKToolLoop(small, { caller: helper }).activeTools).toBeUndefined()
      expect(toAISDKToolLoop(small, { caller: helper, discovery: true })).toMatchObject({ activeTools: ['discover_skills'], prepareStep: expect.any(Function) })
    })

    it('OpenAI: lists the core set and dispatches any of the caller’s tools', async () => {
      const plane = await open({ discovery: { toolThreshold: 3, coreTools: ['write_thing'] } })
      const openai = toOpenAITools(plane, { caller: helper })
      expect(openai.tools.map((t) => t.function.name)).toEqual(['discover_skills', 'write_thing'])
      expect(await openai.dispatch({ id: 'c1', function: { name: 'echo', arguments: '{"message":"unlisted"}' } })).toMatchObject({
        content: '{"message":"unlisted","count":1}',
      })
      expect((await openai.dispatch({ id: 'c2', function: { name: 'explode', arguments: '{}' } })).content).toBe('not_found: no tool "explode" for this caller')
    })

    it('Anthropic: defers all but the core set, and discover_skills answers with tool references', async () => {
      const plane = await open({ discovery: { toolThreshold: 3 } })
      const anthropic = toAnthropicTools(plane, { caller: helper })
      expect(anthropic.tools.map((t) => [t.name, t.defer_loading ?? false])).toEqual([
        ['discover_skills', false],
        ['echo', true],
        ['parent_call', true],
        ['wipe_things', true],
        ['write_thing', true],
      ])
      expect(anthropic.tools.find((t) => t.name === 'echo')).toEqual({
        name: 'echo',
        description: 'Return the message',
        input_schema: expect.objectContaining({ type: 'object', required: ['message'] }),
        defer_loading: true,
      })
      expect(await anthropic.dispatch({ type: 'tool_use', id: 'u1', name: 'discover_skills', input: { query: 'return the message', limit: 1 } })).toEqual({
        type: 'tool_result',
        tool_use_id: 'u1',
        content: [{ type: 'tool_reference', tool_name: 'echo' }],
      })
      // Nothing found to load: the answer reads as it is.
      const none = await anthropic.dispatch({ id: 'u2', name: 'discover_skills', input: { query: 'zebra' } })
      expect(JSON.parse(none.content as string)).toEqual({ results: [], omitted: 0 })
      // A loaded tool is called like any other.
      expect(await anthropic.dispatch({ id: 'u3', name: 'echo', input: { message: 'loaded' } })).toEqual({
        type: 'tool_result',
        tool_use_id: 'u3',
        content: '{"message":"loaded","count":1}',
      })
      // Below the threshold, or with discovery off, nothing is deferred and discover_skills is no tool.
      const plain = toAnthropicTools(plane, { caller: helper, discovery: false })
      expect(plain.tools.map((t) => t.name)).toEqual(['echo', 'parent_call', 'wipe_things', 'write_thing'])
      expect(plain.tools.some((t) => t.defer_loading)).toBe(false)
    })
  })
})
