import { afterEach, describe, expect, it, vi } from 'vitest'
import { heldElicitation } from '../../test-support/held-elicitation.js'
import { sessionClient, sessionLogging } from './session-client.js'

describe('sessionClient: a question to the /mcp client', () => {
  afterEach(() => vi.useRealTimers())

  async function connected() {
    const { server, ...held } = await heldElicitation({ logging: {} })
    const extra = { requestId: 1, sendNotification: async () => {} } as unknown as Parameters<typeof sessionClient>[1]
    return { channel: sessionClient(server, extra, sessionLogging(server)), ...held }
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
