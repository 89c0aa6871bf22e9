import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { AuditRepository, ManagerRepository, RunRepository } from '../store/index.js'
import { waitFor } from '../test-support/databases.js'
import { Liveness } from './liveness.js'

describe('liveness', () => {
  const dirs: string[] = []
  afterEach(() => {
    vi.useRealTimers()
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
  })

  it('starts no heartbeat while one is under way, and a shutdown waits for the one under way to finish', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] })
    const log: string[] = []
    const managers = {
      heartbeat: async () => void log.push('beat'),
      heartbeatSince: async () => [],
      removeStale: async () => 0,
    } as unknown as ManagerRepository
    const audit = { markInterrupted: async () => 0 } as unknown as AuditRepository
    const runs = { failOrphaned: async () => 0 } as unknown as RunRepository
    const processGroupsDir = mkdtempSync(join(tmpdir(), 'liveness-'))
    dirs.push(processGroupsDir)
    const liveness = new Liveness({
      managerId: 'm1',
      managers,
      audit,
      runs,
      processGroupsDir,
      logger: pino({ level: 'silent' }),
      now: () => new Date().toISOString(),
    })
    let finishRefresh!: () => void
    const refresh = () => {
      log.push('refresh')
      return new Promise<void>((resolve) => (finishRefresh = resolve))
    }
    liveness.start(refresh, async () => void log.push('after recovery'))

    vi.advanceTimersByTime(5_000)
    await waitFor(() => log.includes('refresh'))
    // Two more ticks while the first heartbeat waits on its refresh: neither starts another.
    vi.advanceTimersByTime(10_000)
    await new Promise((r) => setImmediate(r))
    expect(log).toEqual(['beat', 'refresh'])

    let stopped = false
    const stopping = liveness.stop().then(() => (stopped = true))
    await new Promise((r) => setImmediate(r))
    expect(stopped).toBe(false)
    finishRefresh()
    await stopping
    expect(log).toEqual(['beat', 'refresh', 'after recovery'])
    // Stopped: no tick comes any more.
    vi.advanceTimersByTime(15_000)
    await new Promise((r) => setImmediate(r))
    expect(log).toEqual(['beat', 'refresh', 'after recovery'])
  })
})
