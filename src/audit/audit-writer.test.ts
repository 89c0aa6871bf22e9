import { afterEach, describe, expect, it } from 'vitest'
import { openDatabase, AuditRepository, type AuditRow, type OpenedDatabase } from '../store/index.js'
import { tempDir } from '../test-support/databases.js'
import { AuditWriter } from './audit-writer.js'

const row = (n: number, status = 'running'): AuditRow => ({
  call_id: `01WRITER${String(n).padStart(18, '0')}`,
  parent_call_id: null,
  skill_key: 'noop',
  caller_id: 'k1',
  caller_name: 'alice',
  caller_kind: 'user',
  caller_role: 'admin',
  agent_id: null,
  conversation_id: null,
  edge_id: null,
  edge_name: null,
  manager_id: 'm1',
  input: '{}',
  result: status === 'ok' ? '{}' : null,
  result_truncated: 0,
  error_code: null,
  error_message: null,
  status,
  started_at: new Date().toISOString(),
  finished_at: status === 'ok' ? new Date().toISOString() : null,
  duration_ms: status === 'ok' ? 1 : null,
  approval_id: null,
  trace_id: null,
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
})
