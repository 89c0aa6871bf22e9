import { afterEach, describe, expect, it } from 'vitest'
import { openDatabase, AuditRepository, type OpenedDatabase } from '../store/index.js'
import { auditRow } from '../test-support/fixtures.js'
import { tempDir } from '../test-support/databases.js'
import { AuditWriter } from './audit-writer.js'

const row = (n: number, status = 'running') =>
  auditRow(`01WRITER${String(n).padStart(18, '0')}`, {
    status,
    ...(status === 'ok' && { result: '{}', finished_at: new Date().toISOString(), duration_ms: 1 }),
  })

describe('the audit writer on SQLite', () => {
  let opened: OpenedDatabase | undefined
  afterEach(() => opened?.close())

  it('lets timers run between the back-to-back writes of a lone writer, though each SQLite commit is synchronous', async () => {
    opened = await openDatabase({ dataDir: tempDir() })
    const repo = new AuditRepository(opened.db, opened.sqlite)
    const writer = new AuditWriter(repo)
    let turns = 0
    const tick = setInterval(() => turns++, 0)
    // A call's two rows, one call after another: every commit is synchronous on SQLite.
    for (let i = 0; i < 300; i++) {
      await writer.write(row(i))
      await writer.write(row(i, 'ok'))
    }
    clearInterval(tick)
    expect(turns).toBeGreaterThan(0)
    expect(await repo.count()).toBe(300)
    // Rows that arrive together afterwards are still gathered and all land.
    await Promise.all(Array.from({ length: 200 }, (_, i) => writer.write(row(1000 + i))))
    expect(await repo.count()).toBe(500)
  })

  it("commits a lone writer's rows without waiting a turn of the event loop each, up to 16 in a turn", async () => {
    opened = await openDatabase({ dataDir: tempDir() })
    const repo = new AuditRepository(opened.db, opened.sqlite)
    const writer = new AuditWriter(repo)
    // Its first row shows the writer alone.
    await writer.write(row(0))
    let turned = false
    setImmediate(() => (turned = true))
    // Eight calls' running and final rows: 16 commits, all in this turn.
    for (let i = 1; i <= 8; i++) {
      await writer.write(row(i))
      await writer.write(row(i, 'ok'))
    }
    expect(turned).toBe(false)
    // The 17th waits for the next turn, so timers and I/O get theirs.
    await writer.write(row(9))
    expect(turned).toBe(true)
    expect(await repo.count()).toBe(10)
  })
})
