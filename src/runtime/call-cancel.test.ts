import { describe, expect, it } from 'vitest'
import { CallCancel } from './call-cancel.js'

describe('CallCancel', () => {
  it('answers with what the skill returns, sync or async', async () => {
    await expect(new CallCancel().race(42)).resolves.toBe(42)
    await expect(new CallCancel().race(Promise.resolve('later'))).resolves.toBe('later')
    await expect(new CallCancel().race(Promise.reject(new Error('failed')))).rejects.toThrow('failed')
  })

  it('rejects with the reason as soon as the call is cancelled, and the signal the skill holds aborts with it', async () => {
    const running = new CallCancel()
    const signal = running.signal
    const never = new Promise(() => {})
    const raced = running.race(never)
    const reason = new Error('cancelled by the manager')
    running.abort(reason)
    await expect(raced).rejects.toBe(reason)
    expect(signal.aborted).toBe(true)
    expect(signal.reason).toBe(reason)
    expect(running.aborted).toBe(true)
    expect(running.reason).toBe(reason)
  })

  it('gives a signal made after the cancel already aborted, and refuses to start a race then', async () => {
    const running = new CallCancel()
    running.abort(new Error('deadline'))
    running.abort(new Error('a second reason is ignored'))
    expect(running.signal.aborted).toBe(true)
    expect((running.signal.reason as Error).message).toBe('deadline')
    await expect(running.race(Promise.resolve(1))).rejects.toThrow('deadline')
    await expect(running.race(1)).rejects.toThrow('deadline')
  })

  it('lets an executor fail after the cancel won without an unhandled rejection', async () => {
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown) => unhandled.push(reason)
    process.on('unhandledRejection', onUnhandled)
    try {
      const running = new CallCancel()
      let fail!: (error: Error) => void
      const raced = running.race(new Promise((_, reject) => (fail = reject)))
      running.abort(new Error('cancelled'))
      await expect(raced).rejects.toThrow('cancelled')
      fail(new Error('the skill failed afterwards'))
      await new Promise((r) => setImmediate(r))
      expect(unhandled).toEqual([])
    } finally {
      process.off('unhandledRejection', onUnhandled)
    }
  })
})
