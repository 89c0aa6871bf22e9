import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import pino from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {
  CreateMessageRequestSchema,
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  type ClientCapabilities,
  type CreateMessageRequest,
  type ElicitRequest,
  type ElicitResult,
  type LoggingMessageNotification,
} from '@modelcontextprotocol/sdk/types.js'
import type { McpServerConfig } from '../../config/index.js'
import type { CallerClient } from '../../skill/index.js'
import { databases, waitFor } from '../../test-support/databases.js'
import { admin, openTestPlane, testAgents, testSkills } from '../../test-support/fixtures.js'
import { createSkillplane } from '../../index.js'
import { startHttpServer } from '../http/start-http-server.js'

const ASKER = join(import.meta.dirname, '../../sources/mcp/fixtures/asking-mcp-server.mjs')
const EVERYTHING = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js')
const ALL: ClientCapabilities = { sampling: {}, elicitation: { form: {}, url: {} } }

/** The asking fixture over Streamable HTTP on a free port of 127.0.0.1. */
async function startAsker(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [ASKER, 'http', '0'], { stdio: ['ignore', 'pipe', 'inherit'] })
  const [chunk] = (await once(child.stdout!, 'data')) as [Buffer]
  return { child, url: `http://127.0.0.1:${/listening (\d+)/.exec(chunk.toString())![1]}/mcp` }
}

/** What one /mcp client was asked and told, and how it answers. */
interface Seen {
  elicit: ElicitRequest['params'][]
  sample: CreateMessageRequest['params'][]
  logs: LoggingMessageNotification['params'][]
  completed: string[]
}

interface Answers {
  elicit?: (params: ElicitRequest['params']) => ElicitResult | Promise<ElicitResult>
  sampleAs?: string
}

describe('the caller channel: what an imported server asks reaches the /mcp session that called', () => {
  const cleanup: Array<() => Promise<unknown> | unknown> = []
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step()
  })

  async function setUp(database: (typeof databases)[number], mcpServers: McpServerConfig[]) {
    const plane = await openTestPlane(database, { mcpServers })
    cleanup.push(() => plane.close())
    const http = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    cleanup.push(() => http.close())
    /** A person's session at /mcp, declaring `capabilities` and answering as `answers` say. */
    const connect = async (name: string, capabilities: ClientCapabilities = ALL, answers: Answers = {}) => {
      const key = (await plane.people.keys.create({ name, role: 'admin' }, plane.now())).key
      const seen: Seen = { elicit: [], sample: [], logs: [], completed: [] }
      const client = new Client({ name: `${name}-client`, version: '1.0.0' }, { capabilities })
      if (capabilities.elicitation) {
        client.setRequestHandler(ElicitRequestSchema, async ({ params }) => {
          seen.elicit.push(params)
          return answers.elicit ? answers.elicit(params) : { action: 'accept', content: { name, password: `${name}-secret` } }
        })
      }
      if (capabilities.sampling) {
        client.setRequestHandler(CreateMessageRequestSchema, async ({ params }) => {
          seen.sample.push(params)
          return { role: 'assistant', content: { type: 'text', text: `${name} says hi` }, model: answers.sampleAs ?? `${name}-model`, stopReason: 'endTurn' }
        })
      }
      client.setNotificationHandler(LoggingMessageNotificationSchema, ({ params }) => void seen.logs.push(params))
      client.setNotificationHandler(ElicitationCompleteNotificationSchema, ({ params }) => void seen.completed.push(params.elicitationId))
      await client.connect(new StreamableHTTPClientTransport(new URL(`${http.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }))
      cleanup.push(() => client.close())
      return { client, seen, key }
    }
    return { plane, http, connect }
  }

  async function asker(database: (typeof databases)[number], extra: Partial<McpServerConfig> = {}) {
    const fixture = await startAsker()
    cleanup.push(() => fixture.child.kill('SIGKILL'))
    return setUp(database, [{ name: 'asker', url: fixture.url, ...extra } as McpServerConfig])
  }

  const callId = (result: unknown) => (result as { _meta: Record<string, string> })._meta['skillplane/callId']!
  const structured = (result: unknown) => (result as { structuredContent: Record<string, any> }).structuredContent

  describe.each(databases)('on $name', (database) => {
    it('over Streamable HTTP, two callers in flight at once each get only their own questions and log lines, audited on their own call', async () => {
      const { plane, connect } = await asker(database)
      const alice = await connect('alice')
      const bob = await connect('bob')
      await alice.client.setLoggingLevel('debug')

      // Both calls are in progress before either asks: only the stream each question came on tells them apart.
      const [forAlice, forBob] = await Promise.all([
        alice.client.callTool({ name: 'asker_ask', arguments: { note: 'alice', together: 2 } }),
        bob.client.callTool({ name: 'asker_ask', arguments: { note: 'bob', together: 2 } }),
      ])
      expect(alice.seen.elicit.map((p) => p.message)).toEqual(['Who is asking? (alice)'])
      expect(bob.seen.elicit.map((p) => p.message)).toEqual(['Who is asking? (bob)'])
      expect(alice.seen.sample.map((p) => p.messages[0]!.content)).toEqual([{ type: 'text', text: 'hello from alice' }])
      expect(bob.seen.sample.map((p) => p.messages[0]!.content)).toEqual([{ type: 'text', text: 'hello from bob' }])
      // The server heard each caller's own answers.
      expect(structured(forAlice)).toMatchObject({
        elicitation: { action: 'accept', content: { name: 'alice', password: 'alice-secret' } },
        sampling: { model: 'alice-model', content: { text: 'alice says hi' } },
      })
      expect(structured(forBob)).toMatchObject({ elicitation: { content: { name: 'bob' } }, sampling: { model: 'bob-model' } })

      // The server's log line, and skillplane's own about the call (at debug, alice's level, the start too).
      const lines = (seen: Seen) => seen.logs.map((l) => [l.level, l.logger, typeof l.data === 'string' ? l.data : (l.data as { event: string }).event])
      expect(lines(alice.seen)).toEqual([
        ['debug', 'skillplane', 'call.started'],
        ['info', 'asker/asker', 'asking for alice'],
        ['info', 'skillplane', 'call.finished'],
      ])
      expect(alice.seen.logs.at(-1)!.data).toMatchObject({ callId: callId(forAlice), skill: 'asker_ask', status: 'ok', durationMs: expect.any(Number) })
      // Bob kept the default level, info: no start line.
      expect(lines(bob.seen)).toEqual([
        ['info', 'asker/asker', 'asking for bob'],
        ['info', 'skillplane', 'call.finished'],
      ])

      // The audit keeps what each server received, the secret-looking field redacted, in the call tree.
      const tree = (await plane.audit.tree({ callId: callId(forAlice) }))!
      expect(tree.spans.map((s) => [s.kind, s.name, s.status])).toEqual([
        ['call', 'asker_ask', 'ok'],
        ['elicitation', 'Who is asking? (alice)', 'accepted'],
        ['sampling', 'alice-model', 'ok'],
      ])
      expect(tree.spans[1]!.elicitation).toEqual({
        mode: 'form',
        message: 'Who is asking? (alice)',
        action: 'accept',
        content: { name: 'alice', password: '[REDACTED]' },
      })
      expect(tree.spans[2]!.sampling).toEqual({ model: 'alice-model', stopReason: 'endTurn', text: 'alice says hi' })
    })

    it('the reference everything server over stdio: its sampling and elicitation tools ask the caller, and its log lines reach it', async () => {
      const { plane, connect } = await setUp(database, [{ name: 'every', command: process.execPath, args: [EVERYTHING, 'stdio'] } as McpServerConfig])
      const alice = await connect('alice', ALL, { elicit: () => ({ action: 'accept', content: { name: 'Alice', check: true, integer: 7 } }) })
      await alice.client.setLoggingLevel('debug')

      const sampled = await alice.client.callTool({ name: 'every_trigger_sampling_request', arguments: { prompt: 'What is 2+2?', maxTokens: 20 } })
      expect(alice.seen.sample).toEqual([
        expect.objectContaining({
          messages: [{ role: 'user', content: { type: 'text', text: 'Resource trigger-sampling-request context: What is 2+2?' } }],
          maxTokens: 20,
        }),
      ])
      expect(JSON.stringify(sampled)).toContain('alice says hi')

      const elicited = await alice.client.callTool({ name: 'every_trigger_elicitation_request', arguments: {} })
      expect(alice.seen.elicit.map((p) => p.message)).toEqual(['Please provide inputs for the following fields:'])
      expect(JSON.stringify(elicited)).toContain('- Name: Alice')
      const tree = (await plane.audit.tree({ callId: callId(elicited) }))!
      expect(tree.spans[1]).toMatchObject({ kind: 'elicitation', status: 'accepted', elicitation: { content: { name: 'Alice', check: true, integer: 7 } } })

      // Simulated logging sends its first line at once, while the toggling call is the only one in flight.
      await alice.client.callTool({ name: 'every_toggle_simulated_logging', arguments: {} })
      await waitFor(() => alice.seen.logs.some((l) => typeof l.data === 'string' && /-level message|level-message/.test(l.data)))
      expect(alice.seen.logs.find((l) => typeof l.data === 'string' && /message/.test(l.data))!.logger).toBe('every')
      await alice.client.callTool({ name: 'every_toggle_simulated_logging', arguments: {} })
    })
  })

  const [sqlite] = databases

  it("a log line or request sent outside the call's stream goes to the one call in flight, and is refused when two are", async () => {
    const { connect } = await asker(sqlite!)
    const alice = await connect('alice')
    const bob = await connect('bob')

    const alone = await alice.client.callTool({ name: 'asker_ask', arguments: { note: 'alone', outside: true } })
    expect(structured(alone)).toMatchObject({ elicitation: { action: 'accept', content: { name: 'alice' } }, sampling: { model: 'alice-model' } })
    expect(alice.seen.logs.map((l) => l.data)).toContain('asking for alone')

    const [first, second] = await Promise.all([
      alice.client.callTool({ name: 'asker_ask', arguments: { note: 'a2', outside: true, together: 2 } }),
      bob.client.callTool({ name: 'asker_ask', arguments: { note: 'b2', outside: true, together: 2 } }),
    ])
    const refused = {
      code: -32600,
      message: expect.stringMatching(/^MCP error -32600: skillplane can't tell which call this elicitation\/create request belongs to \(it came outside/),
    }
    expect(structured(first)).toMatchObject({ elicitation: { error: refused }, sampling: { error: { code: -32600 } } })
    expect(structured(second)).toMatchObject({ elicitation: { error: refused } })
    // Nobody got the other's question or log line: both stayed with skillplane.
    expect(alice.seen.elicit.map((p) => p.message)).toEqual(['Who is asking? (alone)'])
    expect(bob.seen.elicit).toEqual([])
    expect([...alice.seen.logs, ...bob.seen.logs].map((l) => l.data)).not.toContain('asking for a2')
    expect([...alice.seen.logs, ...bob.seen.logs].map((l) => l.data)).not.toContain('asking for b2')
  })

  it('over stdio, a question while two calls are in flight is refused, and the server takes its own way', async () => {
    const { connect } = await setUp(sqlite!, [{ name: 'asker', command: process.execPath, args: [ASKER, 'stdio'] } as McpServerConfig])
    const alice = await connect('alice')
    const bob = await connect('bob')
    const held = bob.client.callTool({ name: 'asker_hold', arguments: {} })
    const asked = await alice.client.callTool({ name: 'asker_ask', arguments: { note: 'stdio', together: 1 } })
    expect(structured(asked)).toMatchObject({ elicitation: { error: { code: -32600 } }, sampling: { error: { code: -32600 } } })
    expect([alice.seen.elicit, bob.seen.elicit]).toEqual([[], []])
    await alice.client.callTool({ name: 'asker_release', arguments: {} })
    await held
    // Alone again: the question is the call's.
    const alone = await alice.client.callTool({ name: 'asker_ask', arguments: { note: 'stdio alone' } })
    expect(structured(alone)).toMatchObject({ elicitation: { content: { name: 'alice' } } })
  })

  it("a late question or log line of alice's ended call never reaches bob, the one call in flight after it", async () => {
    const { connect } = await asker(sqlite!, { timeoutMs: 1_500 })
    const alice = await connect('alice')
    const bob = await connect('bob')
    // alice's call waits upstream for a second ask, then asks outside its stream; her call times out first.
    const timedOut = await alice.client.callTool({ name: 'asker_ask', arguments: { note: 'alice-private', outside: true, together: 2 } })
    expect(timedOut).toMatchObject({ isError: true, _meta: { 'skillplane/error': 'timeout' } })
    // bob's own call unblocks the server: alice's handler now asks on the standalone stream, refused.
    const asked = await bob.client.callTool({ name: 'asker_ask', arguments: { note: 'bob', together: 2 } })
    expect(structured(asked)).toMatchObject({ elicitation: { action: 'accept', content: { name: 'bob' } }, sampling: { model: 'bob-model' } })
    expect(bob.seen.elicit.map((p) => p.message)).toEqual(['Who is asking? (bob)'])
    expect(bob.seen.sample.map((p) => p.messages[0]!.content)).toEqual([{ type: 'text', text: 'hello from bob' }])
    expect(bob.seen.logs.map((l) => l.data)).not.toContain('asking for alice-private')
    expect(alice.seen.elicit).toEqual([])
  })

  it("the same caller's ended call does not block: its late question reaches that caller's next call", async () => {
    const { connect } = await asker(sqlite!, { timeoutMs: 2_000 })
    const alice = await connect('alice')
    const timedOut = await alice.client.callTool({ name: 'asker_ask', arguments: { note: 'late', outside: true, together: 2 } })
    expect(timedOut).toMatchObject({ isError: true, _meta: { 'skillplane/error': 'timeout' } })
    await alice.client.callTool({ name: 'asker_ask', arguments: { note: 'again', together: 2 } })
    expect(alice.seen.elicit.map((p) => p.message).sort()).toEqual(['Who is asking? (again)', 'Who is asking? (late)'])
    expect(alice.seen.logs.map((l) => l.data)).toContain('asking for late')
  })

  it("over stdio, another caller's call ended unanswered turns the one-call fallback off, named", async () => {
    const { connect } = await setUp(sqlite!, [{ name: 'asker', command: process.execPath, args: [ASKER, 'stdio'], timeoutMs: 1_500 } as McpServerConfig])
    const alice = await connect('alice')
    const bob = await connect('bob')
    // A clean call alone: everything over stdio comes outside any stream, and goes to the one call in flight.
    const alone = await bob.client.callTool({ name: 'asker_ask', arguments: { note: 'bob alone' } })
    expect(structured(alone)).toMatchObject({ elicitation: { content: { name: 'bob' } }, sampling: { model: 'bob-model' } })
    const timedOut = await alice.client.callTool({ name: 'asker_ask', arguments: { note: 'alice-private', together: 2 } })
    expect(timedOut).toMatchObject({ isError: true, _meta: { 'skillplane/error': 'timeout' } })
    const refused = await bob.client.callTool({ name: 'asker_ask', arguments: { note: 'bob', together: 2 } })
    expect(structured(refused)).toMatchObject({
      elicitation: { error: { code: -32600, message: expect.stringContaining('a call of another caller that ended here unanswered may still be running') } },
      sampling: { error: { code: -32600 } },
    })
    expect(bob.seen.elicit.map((p) => p.message)).toEqual(['Who is asking? (bob alone)'])
    expect(bob.seen.logs.map((l) => l.data)).not.toContain('asking for alice-private')
    expect(alice.seen.elicit).toEqual([])
  })

  it("a server's log lines no caller owns go to skillplane's log at debug, a flood cut to a budget and the rest counted", async () => {
    const logged: Array<{ level: number; msg: string; server?: string; dropped?: number; data?: string }> = []
    const plane = await createSkillplane({
      config: {
        skills: testSkills(),
        agents: testAgents,
        mcpServers: [{ name: 'asker', command: process.execPath, args: [ASKER, 'stdio'] } as McpServerConfig],
      },
      ...(await sqlite!.create()),
      logger: pino({ level: 'debug' }, { write: (line: string) => void logged.push(JSON.parse(line)) }),
      sync: true,
    })
    cleanup.push(() => plane.close())
    // Lines that come while the call is still in flight on skillplane's side are that call's: its
    // caller hears them. The rest are no caller's: kept in skillplane's log, or dropped and counted.
    const toCaller: unknown[] = []
    const client: CallerClient = {
      capabilities: { sampling: false, elicitation: { form: false, url: false }, logging: true },
      elicit: () => Promise.reject(new Error('not asked')),
      sample: () => Promise.reject(new Error('not asked')),
      // skillplane's own lines about the call come this way too; the server's name the server.
      log: (message) => void (message.logger === 'asker' && toCaller.push(message.data)),
    }
    expect(await plane.invoke('asker_flood', { count: 300 }, { caller: admin, client })).toMatchObject({ ok: true })
    // How the flood splits depends on how fast it arrives, which a loaded machine slows: every line is accounted for.
    const accounted = () =>
      toCaller.length +
      logged.filter((l) => l.msg === 'MCP server log line').length +
      logged.filter((l) => l.msg.startsWith('MCP server log lines dropped')).reduce((n, l) => n + l.dropped!, 0)
    await waitFor(() => accounted() === 300)
    // The caller's share is the flood's start, in order: nothing after the call ended reached it.
    expect(toCaller).toEqual(Array.from({ length: toCaller.length }, (_, i) => `line ${i}`))
    const unowned = 300 - toCaller.length
    const kept = logged.filter((l) => l.msg === 'MCP server log line')
    expect(kept.length).toBeGreaterThanOrEqual(Math.min(20, unowned))
    expect(kept.filter((l) => l.level !== 20 || l.server !== 'asker')).toEqual([])
    const dropped = logged.filter((l) => l.msg.startsWith('MCP server log lines dropped'))
    expect(dropped.filter((l) => l.level !== 30 || l.server !== 'asker')).toEqual([])
    // A flood of 300 within the first second can't all be kept: the budget is 20 at once and 5 a second.
    if (kept.length < unowned) expect(dropped.length).toBeGreaterThan(0)
  })

  it('a client without sampling or elicitation, and an HTTP API call, get what a client without the capability gets: the server falls back', async () => {
    const { plane, connect, http } = await asker(sqlite!)
    const plain = await connect('plain', {})
    const asked = await plain.client.callTool({ name: 'asker_ask', arguments: { note: 'plain' } })
    expect(structured(asked)).toEqual({
      elicitation: {
        error: {
          code: -32601,
          message:
            'MCP error -32601: Method not found: skill "asker_ask" asked its caller for input (form-mode elicitation), which the caller\'s client can\'t answer: it did not declare the elicitation.form capability',
        },
      },
      sampling: {
        error: {
          code: -32601,
          message:
            "MCP error -32601: Method not found: skill \"asker_ask\" asked its caller's model for a completion (sampling), which the caller's client can't answer: it did not declare the sampling capability",
        },
      },
    })
    const tree = (await plane.audit.tree({ callId: callId(asked) }))!
    expect(tree.spans.slice(1).map((s) => [s.kind, s.status])).toEqual([
      ['elicitation', 'error'],
      ['sampling', 'error'],
    ])

    const response = await fetch(`${http.url}/api/skills/asker_ask/invoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${plain.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ input: { note: 'api' } }),
    })
    const envelope = (await response.json()) as { ok: boolean; data: { structuredContent: Record<string, any> } }
    expect(envelope.data.structuredContent.elicitation.error).toEqual({
      code: -32601,
      message: expect.stringContaining('this call came without a channel to its caller (an HTTP API or CLI call)'),
    })
  })

  it('a URL-mode question reaches the client under an id of its own, and its completion follows', async () => {
    const { connect } = await asker(sqlite!)
    const alice = await connect('alice', ALL, { elicit: () => ({ action: 'accept' }) })
    const result = await alice.client.callTool({ name: 'asker_ask_url', arguments: { url: 'https://example.test/connect' } })
    expect(alice.seen.elicit).toEqual([
      { mode: 'url', message: 'Open the link to connect', url: 'https://example.test/connect', elicitationId: expect.any(String) },
    ])
    const seenId = (alice.seen.elicit[0] as { elicitationId: string }).elicitationId
    expect(seenId).not.toBe(structured(result).elicitationId)
    await waitFor(() => alice.seen.completed.length > 0)
    expect(alice.seen.completed).toEqual([seenId])

    // A client with forms only answers a URL question as the SDK's client does: invalid params.
    const formsOnly = await connect('forms', { elicitation: { form: {} } })
    const refused = await formsOnly.client.callTool({ name: 'asker_ask_url', arguments: { url: 'https://example.test/connect' } })
    expect(structured(refused).answer.error).toMatchObject({ code: -32602, message: expect.stringContaining('url-mode elicitation') })
  })

  it('a malformed answer from the client and a client that never answers end clearly', async () => {
    const { plane, connect } = await asker(sqlite!, { timeoutMs: 1_500 })
    const wrong = await connect('wrong', ALL, { elicit: () => ({ action: 'accept', content: { name: 42 } }) })
    const asked = await wrong.client.callTool({ name: 'asker_ask', arguments: { note: 'typed' } })
    expect(structured(asked).elicitation.error).toEqual({
      code: -32603,
      message:
        'MCP error -32603: the caller did not answer the elicitation request: Elicitation response content does not match requested schema: data/name must be string',
    })
    const tree = (await plane.audit.tree({ callId: callId(asked) }))!
    expect(tree.spans[1]).toMatchObject({
      kind: 'elicitation',
      status: 'error',
      elicitation: { error: expect.stringContaining('does not match requested schema') },
    })

    const silent = await connect('silent', ALL, { elicit: () => new Promise<never>(() => {}) })
    const stuck = await silent.client.callTool({ name: 'asker_ask', arguments: { note: 'silent' } })
    expect(stuck).toMatchObject({ isError: true, _meta: { 'skillplane/error': 'timeout' } })
    const stuckTree = (await plane.audit.tree({ callId: callId(stuck) }))!
    expect(stuckTree.spans.map((s) => [s.kind, s.status])).toEqual([
      ['call', 'timeout'],
      ['elicitation', 'error'],
    ])
  })

  it('sends logging/setLevel to a server that logs, and a client that sets error hears no call ending ok', async () => {
    const { connect } = await asker(sqlite!)
    const alice = await connect('alice')
    const level = await alice.client.callTool({ name: 'asker_level', arguments: {} })
    expect(structured(level)).toEqual({ level: 'debug' })
    await alice.client.setLoggingLevel('error')
    await alice.client.callTool({ name: 'asker_level', arguments: {} })
    expect(alice.seen.logs.filter((l) => l.logger === 'skillplane').map((l) => (l.data as { event: string }).event)).toEqual(['call.finished'])
    const missing = await alice.client.callTool({ name: 'asker_nope', arguments: {} })
    expect(missing).toMatchObject({ isError: true })
    expect(alice.seen.logs.at(-1)).toMatchObject({
      level: 'error',
      logger: 'skillplane',
      data: { event: 'call.failed', code: 'not_found', skill: 'asker_nope' },
    })
  })
})
