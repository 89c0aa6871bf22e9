import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { openDatabase, type OpenedDatabase } from './open-database.js'
import { AuditRepository } from './audit-repository.js'
import { auditRow } from '../test-support/fixtures.js'
import { waitFor } from '../test-support/databases.js'

// Padded inputs: 200 rows make enough pages to see the database file grow.
const row = (n: number) => auditRow(`01CKPT${String(n).padStart(20, '0')}`, { input: JSON.stringify({ padding: 'x'.repeat(500), n }) })

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
    await waitFor(() => statSync(file).size > before + 100 * 500)
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
