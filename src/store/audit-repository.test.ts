import { afterEach, describe, expect, it } from 'vitest'
import { databases } from '../test-support/databases.js'
import { openDatabase, type OpenedDatabase } from './open-database.js'
import { AuditRepository, type AuditRow } from './audit-repository.js'
import { AuditWriter } from '../audit/audit-writer.js'
import { encodeTime, ulid } from 'ulid'
import { CompiledQuery, sql } from 'kysely'

const row = (n: number, extra: Partial<AuditRow> = {}): AuditRow => ({
  // Stamped with its start, as the pipeline stamps ids.
  call_id: `${encodeTime(Date.UTC(2026, 0, 1, 0, 0, n), 10)}${String(n).padStart(16, '0')}`,
  parent_call_id: null,
  skill_key: n % 2 ? 'odd' : 'even',
  caller_id: n % 3 ? 'k1' : 'k2',
  caller_name: n % 3 ? 'alice' : 'bob',
  caller_kind: 'user',
  caller_role: 'admin',
  caller_user_id: null,
  caller_display_name: null,
  caller_auth: null,
  caller_key_id: null,
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
  grant_id: null,
  origin_call_id: null,
  spans: null,
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

  it('answers the caller, edge and date filters from indexes (the plan names them), and a caller matches by id or name', async () => {
    opened = await openDatabase(await database.create())
    const repo = new AuditRepository(opened.db, opened.sqlite)
    const rows = Array.from({ length: 5000 }, (_, i) =>
      row(i, {
        status: 'ok',
        caller_id: `k${i % 500}`,
        caller_name: `user${i % 500}`,
        edge_id: i % 100 ? null : `e${i % 7}`,
        edge_name: i % 100 ? null : `edge${i % 7}`,
      }),
    )
    await repo.upsertMany(rows)
    await sql`analyze`.execute(opened.db)
    // Each query the repository runs is explained as it runs.
    const plans: string[] = []
    const explained = opened.db.withPlugin({
      transformQuery: ({ node, queryId }) => {
        const { sql: text, parameters } = opened.db.getExecutor().compileQuery(node, queryId)
        const explain = opened.dialect === 'sqlite' ? 'explain query plan ' : 'explain '
        plans.push(
          opened.db
            .executeQuery<Record<string, unknown>>(CompiledQuery.raw(explain + text, [...parameters]))
            .then((r) => r.rows.map((p) => String(p.detail ?? p['QUERY PLAN'])).join('\n')) as unknown as string,
        )
        return node
      },
      transformResult: async ({ result }) => result,
    })
    const explainedRepo = new AuditRepository(explained)
    const planOf = async (q: Parameters<AuditRepository['query']>[0]) => {
      plans.length = 0
      const page = await explainedRepo.query(q)
      return { page, plan: (await Promise.all(plans)).join('\n') }
    }

    const byName = await planOf({ caller: 'user7', limit: 5 })
    expect(byName.plan).toContain('audit_calls_caller_name_status_idx')
    expect(byName.plan).toContain('audit_calls_caller_id_status_idx')
    expect(byName.page.items.map((r) => r.caller_name)).toEqual(Array(5).fill('user7'))
    // Each side walks its index in call order: no row of the table is read but the page's.
    expect(byName.plan).not.toMatch(/Seq Scan|SCAN audit_calls$|SCAN a$/m)
    // A person named like another caller's key id: both match, newest first, each row once.
    await repo.upsertMany([row(5001, { caller_id: 'k9', caller_name: 'k7' }), row(5002, { caller_id: 'k7', caller_name: 'k7' })])
    const both = await planOf({ caller: 'k7', limit: 4 })
    expect(both.page.items.map((r) => r.call_id)).toEqual([row(5002).call_id, row(5001).call_id, row(4507).call_id, row(4007).call_id])
    const rest = await planOf({ caller: 'k7', limit: 20, cursor: both.page.nextCursor! })
    expect(rest.page.items).toHaveLength(8)
    expect(rest.page.nextCursor).toBeNull()

    // Status and the sparse columns have partial indexes; an `ok` filter walks the key.
    await repo.upsertMany([
      row(5003, { status: 'error', error_code: 'executor_error', trace_id: 't1', parent_call_id: row(5001).call_id, approval_id: 'ap1' }),
      row(5004, { status: 'running', trace_id: 't1' }),
    ])
    const errors = await planOf({ status: 'error', limit: 5 })
    expect(errors.plan).toContain('audit_calls_status_idx')
    expect(errors.page.items.map((r) => r.call_id)).toEqual([row(5003).call_id])
    const oks = await planOf({ status: 'ok', limit: 5 })
    expect(oks.plan).not.toMatch(/TEMP B-TREE|Sort/)
    expect(oks.page.items.map((r) => r.status)).toEqual(Array(5).fill('ok'))
    for (const [q, index] of [
      [{ traceId: 't1', limit: 5 }, 'audit_calls_trace_id_status_idx'],
      [{ parentCallId: row(5001).call_id, limit: 5 }, 'audit_calls_parent_call_id_status_idx'],
      [{ agent: 'helper', limit: 5 }, 'audit_calls_agent_id_status_idx'],
    ] as const) {
      const found = await planOf(q)
      expect(found.plan).toContain(index)
      expect(found.page.items.length).toBeGreaterThan(0)
    }
    expect(await repo.ranWithApproval('ap1')).toBe(true)

    const byEdge = await planOf({ edge: 'edge3', limit: 50 })
    expect(byEdge.plan).toContain('audit_calls_edge_name_status_idx')
    expect(byEdge.page.items.every((r) => r.edge_name === 'edge3')).toBe(true)
    expect(byEdge.page.items.length).toBeGreaterThan(0)

    const window = await planOf({ from: '2026-01-01T00:10:00.000Z', to: '2026-01-01T00:10:05.000Z', limit: 50 })
    // Ids carry the start time: the range is a range of the key (or of started_at's index), never a scan.
    expect(window.plan).toMatch(/call_id>\? AND call_id<\?|audit_calls_started_at_idx|audit_calls_pkey/)
    expect(window.plan).not.toMatch(/Seq Scan|SCAN audit_calls$/m)
    expect(window.page.items).toHaveLength(5)
    // Ids and starts a little apart still match on startedAt: an id taken just before its start
    // (rows written before ids were stamped with it), and one stamped while the clock stepped back.
    const start = Date.UTC(2027, 0, 1)
    const early = row(6001, { call_id: `${encodeTime(start - 500, 10)}${'1'.repeat(16)}`, started_at: new Date(start).toISOString() })
    const late = row(6002, { call_id: `${encodeTime(start + 5_000, 10)}${'2'.repeat(16)}`, started_at: new Date(start + 1).toISOString() })
    await repo.upsertMany([early, late])
    const around = { from: new Date(start).toISOString(), to: new Date(start + 2).toISOString(), limit: 10 }
    expect((await repo.query(around)).items.map((r) => r.call_id)).toEqual([late.call_id, early.call_id])
    expect((await repo.query({ ...around, to: new Date(start + 1).toISOString() })).items.map((r) => r.call_id)).toEqual([early.call_id])
  })

  it('answers every pair of filters, meeting or not, as filtering every row would, page by page', async () => {
    opened = await openDatabase(await database.create())
    const repo = new AuditRepository(opened.db, opened.sqlite)
    const statuses = ['ok', 'ok', 'error', 'denied', 'running', 'timeout']
    const rows = Array.from({ length: 240 }, (_, i) =>
      row(i, {
        status: statuses[i % statuses.length]!,
        skill_key: `s${i % 4}`,
        // An id that equals another caller's name: the caller filter matches either.
        caller_id: i % 9 === 0 ? 'alice' : `k${i % 3}`,
        caller_name: ['alice', 'bob', 'carol'][i % 3]!,
        agent_id: i % 5 ? null : `a${i % 2}`,
        edge_id: i % 7 ? null : 'e1',
        edge_name: i % 7 ? null : 'edge1',
        parent_call_id: i % 11 === 1 ? row(i - 1).call_id : null,
        trace_id: i < 60 ? 't1' : null,
      }),
    )
    await repo.upsertMany(rows)
    const values: Record<string, string[]> = {
      skill: ['s1', 's9'],
      status: ['error', 'ok', 'interrupted'],
      agent: ['a0', 'zz'],
      caller: ['alice', 'k1', 'nobody'],
      edge: ['e1', 'edge1', 'zz'],
      parentCallId: [row(100).call_id, row(1).call_id],
      traceId: ['t1', 't2'],
      from: [row(120).started_at, '2999-01-01T00:00:00.000Z'],
      to: [row(200).started_at, '2000-01-01T00:00:00.000Z'],
    }
    const matches = (r: AuditRow, kind: string, v: string) =>
      ({
        skill: r.skill_key === v,
        status: r.status === v,
        agent: r.agent_id === v,
        caller: r.caller_id === v || r.caller_name === v,
        edge: r.edge_id === v || r.edge_name === v,
        parentCallId: r.parent_call_id === v,
        traceId: r.trace_id === v,
        from: r.started_at >= v,
        to: r.started_at < v,
      })[kind]
    const kinds = Object.keys(values)
    let empty = 0
    for (const [i, a] of kinds.entries()) {
      for (const b of kinds.slice(i + 1)) {
        for (const va of values[a]!) {
          for (const vb of values[b]!) {
            const expected = rows.filter((r) => matches(r, a, va) && matches(r, b, vb)).map((r) => r.call_id)
            // A trace reads oldest first; everything else newest first.
            if (a !== 'traceId' && b !== 'traceId') expected.reverse()
            else expected.sort()
            const got: string[] = []
            let cursor: string | undefined
            do {
              const page = await repo.query({ [a]: va, [b]: vb, cursor, limit: 7 })
              got.push(...page.items.map((r) => r.call_id))
              cursor = page.nextCursor ?? undefined
            } while (cursor)
            expect(got, `${a}=${va} ${b}=${vb}`).toEqual(expected)
            if (expected.length === 0) empty++
          }
        }
      }
    }
    // Both kinds were asked: pairs that meet and pairs that never do.
    expect(empty).toBeGreaterThan(20)
  })

  it('finishes a running row without touching what it keeps, and a row marked interrupted meanwhile takes the whole final row', async () => {
    opened = await openDatabase(await database.create())
    const repo = new AuditRepository(opened.db, opened.sqlite)
    const final = { status: 'ok', result: '{"done":true}', finished_at: '2026-01-01T01:00:00.000Z', duration_ms: 2 }
    await repo.upsertMany([row(1, { approval_id: 'ap1', trace_id: 't1' }), row(2)])
    await repo.upsertMany([row(1, { approval_id: 'ap1', trace_id: 't1', ...final })])
    expect(await repo.get(row(1).call_id)).toMatchObject({ ...final, approval_id: 'ap1', trace_id: 't1', error_code: null, result_truncated: 0 })
    // A manager judged dead finishes after all: its row says what happened, with no stale error left.
    expect(await repo.markInterrupted(['other'], '2026-01-01T00:30:00.000Z')).toBe(1)
    expect(await repo.get(row(2).call_id)).toMatchObject({ status: 'interrupted', error_code: 'unavailable' })
    await repo.upsertMany([row(2, final)])
    expect(await repo.get(row(2).call_id)).toMatchObject({ ...final, error_code: null, error_message: null })
    // An error and a cut result are written too.
    await repo.upsertMany([row(3)])
    await repo.upsertMany([row(3, { ...final, status: 'error', result: 'cut', result_truncated: 1, error_code: 'executor_error', error_message: 'boom' })])
    expect(await repo.get(row(3).call_id)).toMatchObject({
      status: 'error',
      result: 'cut',
      result_truncated: 1,
      error_code: 'executor_error',
      error_message: 'boom',
    })
  })
})
