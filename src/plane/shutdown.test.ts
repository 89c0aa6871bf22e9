import { describe, expect, it } from 'vitest'
import { Shutdown, SHUTDOWN_ORDER } from './shutdown.js'

describe('Shutdown', () => {
  it('closes in the declared order whatever order the parts registered in, once', async () => {
    const shutdown = new Shutdown()
    const closed: string[] = []
    for (const step of [...SHUTDOWN_ORDER].reverse()) shutdown.on(step, () => closed.push(step))
    const first = shutdown.run()
    expect(shutdown.closing).toBe(true)
    expect(shutdown.run()).toBe(first)
    await first
    await shutdown.run()
    expect(closed).toEqual([...SHUTDOWN_ORDER])
  })

  it('waits for each closer before the next: rows are written before the database closes', async () => {
    const shutdown = new Shutdown()
    const closed: string[] = []
    shutdown.on('database', () => closed.push('database'))
    shutdown.on('writes', async () => {
      await new Promise((resolve) => setImmediate(resolve))
      closed.push('writes')
    })
    await shutdown.run()
    expect(closed).toEqual(['writes', 'database'])
  })

  it('on a failed start closes every part opened so far, past one that fails to close, and rethrows the failure', async () => {
    const shutdown = new Shutdown()
    const closed: string[] = []
    shutdown.on('sources', () => {
      throw new Error('a source failed to close')
    })
    shutdown.on('edges', () => closed.push('edges'))
    shutdown.on('database', async () => {
      closed.push('database')
      throw new Error('already closed')
    })
    const failure = new Error('the secrets key does not match')
    await expect(shutdown.abort(failure)).rejects.toBe(failure)
    expect(closed).toEqual(['edges', 'database'])
  })
})
