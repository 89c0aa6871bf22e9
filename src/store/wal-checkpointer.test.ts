import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { openDatabase, type OpenedDatabase } from './open-database.js'
import { AuditRepository, type AuditRow } from './audit-repository.js'

const row = (n: number): AuditRow => ({
  call_id: `01CKPT${String(n).padStart(20, '0')}`,
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
  input: JSON.stringify({ padding: 'x'.repeat(500), n }),
  result: null,
  result_truncated: 0,
  error_code: null,
  error_message: null,
  status: 'running',
  started_at: new Date().toISOString(),
  finished_at: null,
  duration_ms: null,
  approval_id: null,
  trace_id: null,
})

async function until(check: () => boolean, ms = 10_000): Promise<boolean> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await new Promise((r) => setTimeout(r, 20))) if (check()) return true
  return check()
}

describe('WAL checkpoints on a worker thread', () => {
  let opened: OpenedDatabase | undefined
  let dir: string
  afterEach(async () => {
    await opened?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('copies committed pages into the database file without the writer checkpointing, and stops with the database', async () => {
    dir = mkdtempSync(join(tmpdir(), 'skillplane-wal-'))
    const errors: string[] = []
    opened = await openDatabase({ dataDir: dir, walCheckpointer: { onError: (message) => errors.push(message) } })
    const file = opened.location
    // The writer's own checkpoints wait for a WAL far larger than these rows make.
    expect(opened.sqlite!.pragma('wal_autocheckpoint', { simple: true })).toBe(10_000)
    const repo = new AuditRepository(opened.db, opened.sqlite)
    const before = statSync(file).size
    for (let i = 0; i < 200; i++) await repo.upsertMany([row(i)])
    // Only a checkpoint grows the database file; the WAL holds every commit until then.
    expect(await until(() => statSync(file).size > before + 100 * 500)).toBe(true)
    expect(errors).toEqual([])
    await opened.close()
    opened = undefined
    // Every row is in the database file itself: readable with the WAL gone.
    rmSync(`${file}-wal`, { force: true })
    const reopened = await openDatabase({ dataDir: dir })
    expect(await new AuditRepository(reopened.db).count()).toBe(200)
    await reopened.close()
  })

  it('is not started for a plain open: the writer checkpoints as SQLite does by default', async () => {
    dir = mkdtempSync(join(tmpdir(), 'skillplane-wal-'))
    opened = await openDatabase({ dataDir: dir })
    expect(opened.sqlite!.pragma('wal_autocheckpoint', { simple: true })).toBe(1000)
  })
})
