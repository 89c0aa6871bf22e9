import { afterEach, describe, expect, it, vi } from 'vitest'
import type { Skillplane } from '../../agents/index.js'
import type { Envelope } from '../../skill/index.js'
import { heldElicitation } from '../../test-support/held-elicitation.js'
import { connectInCall } from './connect-in-call.js'

describe('connectInCall: the "connect your account" question to the /mcp client', () => {
  afterEach(() => vi.useRealTimers())

  const link = { provider: 'github', url: 'https://127.0.0.1/connect/github' }
  const refused: Envelope = { ok: false, callId: 'c1', error: { code: 'needs_auth', message: 'connect github first', details: { connect: link } } }
  // Only what the question reads of the plane: the provider's title and who connects.
  const connected = new Set<() => void>()
  const plane = {
    oauth: {
      providers: () => [{ name: 'github', title: 'GitHub' }],
      onConnected: (listener: () => void) => (connected.add(listener), () => connected.delete(listener)),
    },
  } as unknown as Skillplane

  it("leaves the person the whole wait to open the link, not the SDK's 60 s, and gives the refusal back after it", async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const { server, until, asked } = await heldElicitation({}, { url: {} })
    let settled: Envelope | null = null
    const retry = vi.fn(async (): Promise<Envelope> => ({ ok: true, callId: 'c2', data: {} }))
    const pending = connectInCall(server, plane, refused, link, retry, {
      requestId: 1,
      signal: new AbortController().signal,
      person: 'alice',
      waitMs: 10 * 60_000,
    }).then((envelope) => (settled = envelope))
    await until(asked)
    await vi.advanceTimersByTimeAsync(10 * 60_000 - 1_000)
    expect(settled).toBeNull()
    await vi.advanceTimersByTimeAsync(1_000)
    await pending
    expect(settled).toBe(refused)
    expect(retry).not.toHaveBeenCalled()
    expect(connected.size).toBe(0)
  })
})
