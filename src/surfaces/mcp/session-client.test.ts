import { afterEach, describe, expect, it, vi } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js'
import { sessionClient, sessionLogging } from './session-client.js'

describe('sessionClient: a question to the /mcp client', () => {
  afterEach(() => vi.useRealTimers())

  /** A real SDK server and client in memory; the client answers a question when the test says. */
  async function connected() {
    const server = new Server({ name: 'skillplane', version: '1.0.0' }, { capabilities: { logging: {} } })
    const client = new Client({ name: 'person', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } })
    let answer!: (result: ElicitResult) => void
    let asked = false
    client.setRequestHandler(ElicitRequestSchema, () => {
      asked = true
      return new Promise<ElicitResult>((resolve) => (answer = resolve))
    })
    const [near, far] = InMemoryTransport.createLinkedPair()
    await Promise.all([server.connect(near), client.connect(far)])
    const extra = { requestId: 1, sendNotification: async () => {} } as unknown as Parameters<typeof sessionClient>[1]
    const channel = sessionClient(server, extra, sessionLogging(server))
    const until = async (condition: () => boolean) => {
      while (!condition()) await vi.advanceTimersByTimeAsync(0)
    }
    return { channel, answer: (result: ElicitResult) => answer(result), until, asked: () => asked }
  }

  const question = { mode: 'form' as const, message: 'Who?', requestedSchema: { type: 'object' as const, properties: { name: { type: 'string' as const } } } }

  it("waits past the SDK's 60 s default: only the call's own signal bounds it", async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const { channel, answer, until, asked } = await connected()
    let settled: unknown = null
    const pending = channel.elicit(question, { signal: new AbortController().signal }).then(
      (result) => (settled = result),
      (error: unknown) => (settled = error),
    )
    await until(asked)
    await vi.advanceTimersByTimeAsync(10 * 60_000)
    expect(settled).toBeNull()
    answer({ action: 'accept', content: { name: 'alice' } })
    await pending
    expect(settled).toEqual({ action: 'accept', content: { name: 'alice' } })
  })

  it("ends when the call's signal aborts", async () => {
    const { channel, asked } = await connected()
    const call = new AbortController()
    const pending = channel.elicit(question, { signal: call.signal })
    while (!asked()) await new Promise((resolve) => setImmediate(resolve))
    call.abort(new Error('the call timed out'))
    await expect(pending).rejects.toThrow('the call timed out')
  })
})
