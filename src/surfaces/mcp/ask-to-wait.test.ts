import { afterEach, describe, expect, it, vi } from 'vitest'
import { heldElicitation } from '../../test-support/held-elicitation.js'
import type { Envelope } from '../../skill/index.js'
import { askToWait } from './ask-to-wait.js'

describe('askToWait: the approval question to the /mcp client', () => {
  afterEach(() => vi.useRealTimers())

  const connected = () => heldElicitation()

  const NOW = '2026-01-01T00:00:00.000Z'
  /** A call refused for an approval request that can be decided for `minutes` more. */
  const refused = (minutes: number): Envelope => ({
    ok: false,
    callId: 'c1',
    error: {
      code: 'approval_required',
      message: 'write_thing needs an approval',
      details: { approvalId: 'a1', expiresAt: new Date(Date.parse(NOW) + minutes * 60_000).toISOString() },
    },
  })

  const WAIT_MS = 15 * 60_000
  const ask = (signal = new AbortController().signal, waitMs = WAIT_MS) => ({ requestId: 1, signal, now: NOW, waitMs })

  it("waits past the SDK's 60 s default while the approval request can still be decided", async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const { server, answer, until, asked } = await connected()
    let settled: boolean | null = null
    const pending = askToWait(server, refused(30), ask()).then((wait) => (settled = wait))
    await until(asked)
    await vi.advanceTimersByTimeAsync(10 * 60_000)
    expect(settled).toBeNull()
    answer({ action: 'accept', content: { wait: true } })
    await pending
    expect(settled).toBe(true)
  })

  /** Ask for a request that can be decided for `minutes` more, in a call that waits `waitMs`: the question must end (no wait) at `endsAfterMs`, not before. */
  const endsAt = async (minutes: number, waitMs: number, endsAfterMs: number) => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const { server, until, asked } = await connected()
    let settled: boolean | null = null
    const pending = askToWait(server, refused(minutes), ask(undefined, waitMs)).then((wait) => (settled = wait))
    await until(asked)
    await vi.advanceTimersByTimeAsync(endsAfterMs - 1_000)
    expect(settled).toBeNull()
    await vi.advanceTimersByTimeAsync(1_000)
    await pending
    expect(settled).toBe(false)
  }

  it('gives up (no wait) when the approval request expires unanswered before the call stops waiting, not before', async () => {
    await endsAt(5, WAIT_MS, 5 * 60_000)
  })

  it("gives up (no wait) when the call's wait ends before the approval request expires (a 24 h request stays open no longer)", async () => {
    await endsAt(24 * 60, 3 * 60_000, 3 * 60_000)
  })

  it("ends when the client cancels the call, and doesn't ask for a request already expired", async () => {
    const { server, asked } = await connected()
    const call = new AbortController()
    const pending = askToWait(server, refused(30), ask(call.signal))
    while (!asked()) await new Promise((resolve) => setImmediate(resolve))
    call.abort(new Error('cancelled by the client'))
    expect(await pending).toBe(false)
    const late = await connected()
    expect(await askToWait(late.server, refused(-1), ask())).toBe(false)
    expect(late.asked()).toBe(false)
  })
})
