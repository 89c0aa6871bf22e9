import { describe, expect, it } from 'vitest'
import { waitFor } from '../test-support/databases.js'
import { DeadlineExceeded } from './abort-reasons.js'
import { CallCancel } from './call-cancel.js'
import { Deadlines } from './deadlines.js'

describe('Deadlines', () => {
  it('cancels each call at its own deadline, an earlier one started later first', async () => {
    const deadlines = new Deadlines()
    // A minute away: however stalled a loaded machine's event loop, it is still to come when the others fire.
    const distant = new CallCancel()
    const long = new CallCancel()
    const short = new CallCancel()
    const handle = deadlines.start(distant, 60_000)
    deadlines.start(long, 300)
    deadlines.start(short, 20)
    await waitFor(() => short.aborted, 5_000)
    expect(distant.aborted).toBe(false)
    expect(short.reason).toBeInstanceOf(DeadlineExceeded)
    expect((short.reason as DeadlineExceeded).timeoutMs).toBe(20)
    await waitFor(() => long.aborted, 5_000)
    expect((long.reason as DeadlineExceeded).timeoutMs).toBe(300)
    expect(distant.aborted).toBe(false)
    deadlines.end(handle)
  })

  it('never cancels a call that ended before its deadline', async () => {
    const deadlines = new Deadlines()
    const ended = new CallCancel()
    const later = new CallCancel()
    deadlines.end(deadlines.start(ended, 20))
    // Started after the first with a longer deadline: once it fires, the first's has long passed.
    deadlines.start(later, 60)
    await waitFor(() => later.aborted, 5_000)
    expect(ended.aborted).toBe(false)
  })
})
