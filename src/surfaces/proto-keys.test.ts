import { afterEach, describe, expect, it } from 'vitest'
import { generateText, stepCountIs } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import type { LanguageModelV3GenerateResult } from '@ai-sdk/provider'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { databases } from '../test-support/databases.js'
import { admin, agentCaller, openTestPlane, testAgents } from '../test-support/fixtures.js'
import { says, scripted } from '../test-support/mock-model.js'
import { runCli } from '../test-support/run-cli.js'
import { toAISDKToolLoop, toAnthropicTools, toOpenAITools } from '../ai-sdk/index.js'
import type { Skillplane } from '../agents/index.js'
import { startHttpServer } from './http/start-http-server.js'
import { workSteps } from '../test-support/run-steps.js'

const [sqlite] = databases
// What a client or a model sends: JSON.parse keeps "__proto__" as an own key, which many copies drop.
const SENT = '{"message":"hi","__proto__":{"message":"hidden"}}'
const REFUSAL = 'invalid input: the input has a "__proto__" key at /__proto__, which is not allowed'
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } }
// A model turn whose tool input is exactly SENT (an object literal can't hold an own "__proto__").
const callsEchoAsSent: LanguageModelV3GenerateResult = {
  content: [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'echo', input: SENT }],
  finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
  usage,
  warnings: [],
}

describe('an input key "__proto__" is refused by name on every surface, and audited', () => {
  const cleanup: Array<() => Promise<unknown>> = []
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step().catch(() => {})
  })
  const open = async (plane: Promise<Skillplane>) => {
    const opened = await plane
    cleanup.push(() => opened.close())
    return opened
  }
  const refusedRow = async (plane: Skillplane, callId: string) =>
    expect(await plane.audit.get(callId)).toMatchObject({ skill: 'echo', status: 'error', error: { code: 'invalid_input', message: REFUSAL } })

  it('over HTTP and MCP', async () => {
    const plane = await open(openTestPlane(sqlite!))
    const server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    cleanup.push(() => server.close())
    const key = (await plane.people.keys.create({ name: 'root', role: 'admin' }, plane.now())).key

    const response = await fetch(`${server.url}/api/skills/echo/invoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: `{"input":${SENT}}`,
    })
    expect(response.status).toBe(400)
    const body = (await response.json()) as { error: unknown; callId: string }
    expect(body.error).toEqual({ code: 'invalid_input', message: REFUSAL })
    await refusedRow(plane, body.callId)

    const client = new Client({ name: 'hostile', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }))
    cleanup.push(() => client.close())
    // The SDK client sends the arguments as given: the own key goes over the wire.
    const result = (await client.callTool({ name: 'echo', arguments: JSON.parse(SENT) })) as {
      isError?: boolean
      content: unknown
      _meta: Record<string, string>
    }
    expect(result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: `invalid_input: ${REFUSAL}` }],
      _meta: { 'skillplane/error': 'invalid_input' },
    })
    await refusedRow(plane, result._meta['skillplane/callId']!)
    // Without the key, the same call runs.
    expect(await client.callTool({ name: 'echo', arguments: { message: 'hi' } })).toMatchObject({ structuredContent: { message: 'hi', count: 1 } })
  })

  it('from the CLI', async () => {
    const location = await sqlite!.create()
    const run = runCli(location, ['invoke', 'echo', '--input', SENT])
    expect(run.code).toBe(1)
    expect(run.json()).toMatchObject({ ok: false, error: { code: 'invalid_input', message: REFUSAL } })
    const plane = await open(openTestPlane(sqlite!, {}, location))
    expect((await plane.audit.query({ skill: 'echo', limit: 5 })).items).toMatchObject([
      { status: 'error', error: { code: 'invalid_input', message: REFUSAL } },
    ])
  })

  it("in agents' tool calls: an agent run, the AI SDK tools, OpenAI and Anthropic tool calls", async () => {
    const model = scripted(callsEchoAsSent, says('refused'))
    const plane = await open(openTestPlane(sqlite!, { agents: [{ ...testAgents![0]!, model }, testAgents![1]!] }))
    const run = await plane.runs.start({ agent: 'helper', prompt: 'say hi', requester: admin })
    expect(run).toMatchObject({ status: 'completed', output: 'refused' })
    // The model read the pipeline's refusal; the step and the audit row say what was sent.
    expect(JSON.stringify(model.doStreamCalls[1]!.prompt)).toContain(`invalid_input: ${REFUSAL}`.replaceAll('"', '\\"'))
    const [step] = workSteps(run)
    expect(step).toMatchObject({ kind: 'tool', tool: 'echo', status: 'error', callId: expect.any(String) })
    await refusedRow(plane, step!.callId!)
    expect(JSON.stringify((await plane.audit.get(step!.callId!))!.input)).toBe(SENT)

    // toAISDKToolLoop's settings, spread into generateText, do the same for an app's own loop.
    const loop = toAISDKToolLoop(plane, { caller: agentCaller('helper') })
    const own = new MockLanguageModelV3({ doGenerate: [callsEchoAsSent, says('refused')] })
    const result = await generateText({ model: own, ...loop, prompt: 'x', stopWhen: stepCountIs(3) })
    expect(result.steps[0]!.content).toContainEqual(
      expect.objectContaining({ type: 'tool-error', error: expect.stringContaining(`invalid_input: ${REFUSAL}`) }),
    )

    const openai = await toOpenAITools(plane, { caller: agentCaller('helper') }).dispatch({
      id: 'c1',
      type: 'function',
      function: { name: 'echo', arguments: SENT },
    })
    expect(openai.content).toBe(`invalid_input: ${REFUSAL}`)
    const anthropic = await toAnthropicTools(plane, { caller: admin }).dispatch({ type: 'tool_use', id: 'u1', name: 'echo', input: JSON.parse(SENT) })
    expect(anthropic).toMatchObject({ is_error: true, content: `invalid_input: ${REFUSAL}` })
    // Nothing ran: every echo call of this plane was refused.
    expect((await plane.audit.query({ skill: 'echo', limit: 10 })).items.map((row) => row.status)).toEqual(['error', 'error', 'error', 'error'])
  })
})
