import { afterEach, describe, expect, it, vi } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { CallerClient, ElicitParams } from '../../skill/index.js'
import { CallChannels, MIN_ORPHAN_MS } from './call-channels.js'
import { loadMcpSdk } from './mcp-sdk.js'

const silent = { debug() {}, info() {}, warn() {}, error() {} }

/** A caller's channel that answers every question with its own name, and records what it was asked. */
function caller(name: string): CallerClient & { asked: string[] } {
  const asked: string[] = []
  return {
    asked,
    capabilities: { sampling: false, elicitation: { form: true, url: false }, logging: true },
    elicit: async (params: ElicitParams) => {
      asked.push(params.message)
      return { action: 'accept', content: { name } }
    },
    sample: async () => {
      throw new Error('no sampling')
    },
    log() {},
  }
}

describe("CallChannels: another caller's call that ended unanswered blocks the one-call fallback for a bounded time", () => {
  afterEach(() => vi.useRealTimers())

  /** An imported server (a real SDK server in memory) and skillplane's client of it, served by the channels. */
  async function connected(timeoutMs: number | undefined) {
    const channels = new CallChannels({ server: 'upstream', logger: silent, clean: (text) => text, timeoutMs })
    const upstream = new Server({ name: 'upstream', version: '1.0.0' }, { capabilities: {} })
    const client = new Client({ name: 'skillplane', version: '1.0.0' }, { capabilities: { elicitation: { form: {} }, sampling: {} } })
    channels.serve(client, await loadMcpSdk())
    const [near, far] = InMemoryTransport.createLinkedPair()
    await Promise.all([upstream.connect(near), client.connect(far)])
    // A question the server sends outside any request's answer stream (stdio, the standalone stream).
    const askOutside = () =>
      upstream.elicitInput({ message: 'Who is there?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } }).then(
        (answer) => answer,
        (error: Error) => error,
      )
    return { channels, askOutside }
  }

  /** alice's call ends unanswered (aborted), so her handler may still be running upstream. */
  async function aliceTimesOut(channels: CallChannels) {
    const aborted = AbortSignal.abort(new Error('timed out'))
    await expect(channels.during(caller('alice'), 'alice', aborted, () => Promise.reject(new Error('timed out')))).rejects.toThrow('timed out')
  }

  /** bob's call in flight alone while `check` runs. */
  async function whileBobCalls<T>(channels: CallChannels, bob: CallerClient, check: () => Promise<T>): Promise<T> {
    let release!: () => void
    const held = channels.during(bob, 'bob', new AbortController().signal, () => new Promise<void>((resolve) => (release = resolve)))
    try {
      return await check()
    } finally {
      release()
      await held
    }
  }

  it('for the 5-minute floor when the server times calls out sooner, then the one call in flight gets the question again', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const { channels, askOutside } = await connected(1_500)
    const bob = caller('bob')
    await aliceTimesOut(channels)
    expect(await whileBobCalls(channels, bob, askOutside)).toMatchObject({
      code: -32600,
      message: expect.stringContaining('another caller that ended here unanswered'),
    })
    vi.setSystemTime(Date.now() + MIN_ORPHAN_MS - 1_000)
    expect(await whileBobCalls(channels, bob, askOutside)).toMatchObject({ code: -32600 })
    expect(bob.asked).toEqual([])
    vi.setSystemTime(Date.now() + 1_000)
    expect(await whileBobCalls(channels, bob, askOutside)).toEqual({ action: 'accept', content: { name: 'bob' } })
    expect(bob.asked).toEqual(['Who is there?'])
  })

  it("for the server's timeoutMs when that is longer than the floor", async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const { channels, askOutside } = await connected(20 * 60_000)
    const bob = caller('bob')
    await aliceTimesOut(channels)
    vi.setSystemTime(Date.now() + 20 * 60_000 - 1_000)
    expect(await whileBobCalls(channels, bob, askOutside)).toMatchObject({ code: -32600 })
    vi.setSystemTime(Date.now() + 1_000)
    expect(await whileBobCalls(channels, bob, askOutside)).toEqual({ action: 'accept', content: { name: 'bob' } })
  })
})
