import { describe, expect, it } from 'vitest'
import pino from 'pino'
import { heartbeatTasks, type HeartbeatParts } from './heartbeat.js'

/** Parts that record what ran, in order; `fail` names a step that throws. */
function parts(log: string[], fail?: string): HeartbeatParts & { forgotten: () => boolean } {
  let forgotten = false
  const step = (name: string) => async () => {
    log.push(name)
    if (name === fail) throw new Error(`${name} failed`)
  }
  return {
    watch: { look: async () => () => true, forget: () => void (forgotten = true) },
    catalog: { refresh: step('catalog') },
    policies: { refresh: step('policies') },
    edges: { refresh: step('edges') },
    connections: { refresh: step('connections') },
    oauth: { refresh: step('oauth') },
    discovery: { refresh: step('discovery') },
    approvals: { expireDue: step('approvals') as () => Promise<never> },
    memory: { sweepDue: step('memory') },
    learnings: { dailySweepDue: step('learnings') },
    retention: { dailySweepDue: step('retention') },
    installed: { changed: () => true, reload: step('installed') },
    dailySweeps: true,
    logger: pino({ level: 'silent' }),
    forgotten: () => forgotten,
  }
}

describe('heartbeat', () => {
  it('lets the event loop turn between its steps, so other work is served before the heartbeat ends', async () => {
    const log: string[] = []
    const beat = heartbeatTasks(parts(log))
    const refreshing = beat.refresh()
    // Queued as the heartbeat starts: held back until the whole heartbeat was done, were its steps chained by promises alone.
    setImmediate(() => log.push('other work'))
    await refreshing
    expect(log.indexOf('other work')).toBeGreaterThan(-1)
    expect(log.indexOf('other work')).toBeLessThan(log.indexOf('discovery'))
    expect(log.filter((entry) => entry !== 'other work')).toEqual(['installed', 'catalog', 'policies', 'edges', 'connections', 'oauth', 'discovery'])

    log.length = 0
    const sweeping = beat.afterRecovery()
    setImmediate(() => log.push('other work'))
    await sweeping
    expect(log).toEqual(['approvals', 'other work', 'memory', 'learnings', 'retention'])
  })

  it('runs every refresh when one fails, then reports the failure and forgets the versions it saw', async () => {
    const log: string[] = []
    const p = parts(log, 'policies')
    await expect(heartbeatTasks(p).refresh()).rejects.toThrow('policies failed')
    expect(log).toEqual(['installed', 'catalog', 'policies', 'edges', 'connections', 'oauth', 'discovery'])
    // The next look reports every table as moved, so what failed is read again.
    expect(p.forgotten()).toBe(true)
  })

  it('runs the housekeeping after a failed expiry, and reports it', async () => {
    const log: string[] = []
    await expect(heartbeatTasks(parts(log, 'approvals')).afterRecovery()).rejects.toThrow('approvals failed')
    expect(log).toEqual(['approvals', 'memory', 'learnings', 'retention'])
  })
})
