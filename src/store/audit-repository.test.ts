import { afterEach, describe, expect, it } from 'vitest'
import { databases } from '../test-support/databases.js'
import { openDatabase, type OpenedDatabase } from './open-database.js'
import { AuditRepository, type AuditRow } from './audit-repository.js'
import { AuditWriter } from '../audit/audit-writer.js'
import { ulid } from 'ulid'

const row = (n: number, extra: Partial<AuditRow> = {}): AuditRow => ({
  call_id: `01J${String(n).padStart(23, '0')}`,
  parent_call_id: null,
  skill_key: n % 2 ? 'odd' : 'even',
  caller_id: n % 3 ? 'k1' : 'k2',
  caller_name: n % 3 ? 'alice' : 'bob',
  caller_kind: 'user',
  caller_role: 'admin',
  agent_id: n % 5 ? null : 'helper',
  conversation_id: null,
  edge_id: null,
  edge_name: null,
  manager_id: 'm1',
  input: '{}',
  result: null,
  result_truncated: 0,
  error_code: null,
  error_message: null,
  status: 'running',
  started_at: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
  finished_at: null,
  duration_ms: null,
  approval_id: null,
  trace_id: null,
  ...extra,
})

describe.each(databases)('audit store on $name', (database) => {
  let opened: OpenedDatabase
  afterEach(async () => {
    await opened?.close()
  })

  it('group-commits concurrent writes: every row lands, finals overwrite running rows', async () => {
    opened = await openDatabase(await database.create())
    const repo = new AuditRepository(opened.db, opened.sqlite)
    const writer = new AuditWriter(repo)
    await Promise.all(Array.from({ length: 1000 }, (_, i) => writer.write(row(i))))
    await Promise.all(
      Array.from({ length: 1000 }, (_, i) =>
        writer.write(row(i, { status: 'ok', result: `{"n":${i}}`, finished_at: '2026-01-01T01:00:00.000Z', duration_ms: 1.5 })),
      ),
    )
    await writer.drain()
    const all = await repo.query({ limit: 500 })
    expect(all.items).toHaveLength(500)
    expect(all.items.every((r) => r.status === 'ok' && r.duration_ms === 1.5)).toBe(true)
    let count = 0
    let cursor: string | undefined
    do {
      const page = await repo.query({ limit: 300, cursor })
      count += page.items.length
      cursor = page.nextCursor ?? undefined
    } while (cursor)
    expect(count).toBe(1000)
  })

  it('filters by skill, status, agent, caller id or name and time window, newest first with cursor paging', async () => {
    opened = await openDatabase(await database.create())
    const repo = new AuditRepository(opened.db, opened.sqlite)
    await repo.upsertMany(Array.from({ length: 30 }, (_, i) => row(i, { status: i < 10 ? 'ok' : 'error' })))
    expect((await repo.query({ skill: 'odd', limit: 100 })).items).toHaveLength(15)
    expect((await repo.query({ status: 'ok', limit: 100 })).items).toHaveLength(10)
    expect((await repo.query({ agent: 'helper', limit: 100 })).items.map((r) => r.call_id.slice(-2))).toEqual(['25', '20', '15', '10', '05', '00'])
    expect((await repo.query({ caller: 'bob', limit: 100 })).items).toHaveLength(10)
    expect((await repo.query({ caller: 'k2', limit: 100 })).items).toHaveLength(10)
    const window = await repo.query({ from: '2026-01-01T00:00:05.000Z', to: '2026-01-01T00:00:08.000Z', limit: 100 })
    expect(window.items.map((r) => r.started_at)).toEqual(['2026-01-01T00:00:07.000Z', '2026-01-01T00:00:06.000Z', '2026-01-01T00:00:05.000Z'])
    const first = await repo.query({ skill: 'even', limit: 4 })
    const second = await repo.query({ skill: 'even', limit: 4, cursor: first.nextCursor! })
    expect(first.items.map((r) => r.call_id.slice(-2))).toEqual(['28', '26', '24', '22'])
    expect(second.items.map((r) => r.call_id.slice(-2))).toEqual(['20', '18', '16', '14'])
    const last = await repo.query({ skill: 'even', limit: 100, cursor: second.nextCursor! })
    expect(last.items).toHaveLength(7)
    expect(last.nextCursor).toBeNull()
  })

  it('counts the skills one caller called ok most since a moment, most first', async () => {
    opened = await openDatabase(await database.create())
    const repo = new AuditRepository(opened.db, opened.sqlite)
    const now = Date.UTC(2026, 5, 1)
    const day = 24 * 60 * 60 * 1000
    const call = (skill: string, at: number, extra: Partial<AuditRow> = {}) =>
      row(0, { call_id: ulid(at), skill_key: skill, caller_id: 'k1', status: 'ok', ...extra })
    await repo.upsertMany([
      call('echo', now - day),
      call('echo', now - 2 * day),
      call('echo', now - 3 * day),
      call('probe', now - day),
      call('probe', now - day),
      call('alpha', now - day),
      // Older than the window, failed, or another caller's: none of them count.
      call('old', now - 8 * day),
      call('old', now - 9 * day),
      call('old', now - 10 * day),
      call('failing', now - day, { status: 'error' }),
      call('failing', now - day, { status: 'error' }),
      call('failing', now - day, { status: 'error' }),
      call('theirs', now - day, { caller_id: 'k2' }),
      call('theirs', now - day, { caller_id: 'k2' }),
      call('theirs', now - day, { caller_id: 'k2' }),
    ])
    const since = now - 7 * day
    expect(await repo.mostCalled({ callerId: 'k1', since, limit: 10 })).toEqual([
      { skill: 'echo', calls: 3 },
      { skill: 'probe', calls: 2 },
      { skill: 'alpha', calls: 1 },
    ])
    expect(await repo.mostCalled({ callerId: 'k1', since, limit: 2 })).toEqual([
      { skill: 'echo', calls: 3 },
      { skill: 'probe', calls: 2 },
    ])
    expect(await repo.mostCalled({ callerId: 'nobody', since, limit: 10 })).toEqual([])
  })

  it('keeps audit rows out of a concurrent transaction that rolls back', async () => {
    opened = await openDatabase(await database.create())
    const writer = new AuditWriter(new AuditRepository(opened.db, opened.sqlite))
    let written: Promise<void> | undefined
    const rolledBack = opened.db.transaction().execute(async (trx) => {
      await trx.insertInto('agents').values({ id: 'a', name: 'A', aliases: '[]', description: '', declared: 1, created_at: 'x', updated_at: 'x' }).execute()
      written = writer.write(row(7))
      await new Promise((r) => setTimeout(r, 50))
      throw new Error('roll back')
    })
    await expect(rolledBack).rejects.toThrow('roll back')
    await written
    expect(await new AuditRepository(opened.db).get(row(7).call_id)).toMatchObject({ status: 'running' })
    expect(await opened.db.selectFrom('agents').selectAll().execute()).toEqual([])
  })

  it('fails a write loudly instead of losing it when the database is gone', async () => {
    opened = await openDatabase(await database.create())
    const writer = new AuditWriter(new AuditRepository(opened.db, opened.sqlite))
    await opened.close()
    await expect(writer.write(row(1))).rejects.toThrow()
    opened = await openDatabase(await database.create())
  })
})
