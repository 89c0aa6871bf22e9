import fc from 'fast-check'
import { sql } from 'kysely'
import { afterEach, describe, expect, it } from 'vitest'
import { monotonicFactory } from 'ulid'
import { databases } from '../test-support/databases.js'
import { auditRow } from '../test-support/fixtures.js'
import { AuditRepository, type AuditRow } from './audit-repository.js'
import { binOf, DURATION_BOUNDS, DURATION_COLUMNS, PERCENTILE_ERROR, percentile, STATS_COLUMNS, WAIT_BOUNDS, WAIT_COLUMNS } from './call-stats.js'
import { openDatabase, type OpenedDatabase } from './open-database.js'

const SKILLS = ['alpha', 'beta', 'gamma']
const base = Date.UTC(2026, 0, 1, 23, 58)

function running(n: number, at: number, manager: string): AuditRow {
  return auditRow(`C${String(n).padStart(25, '0')}`, {
    skill_key: SKILLS[n % 3]!,
    caller_id: n % 2 ? 'k1' : 'k2',
    caller_name: n % 2 ? 'alice' : 'bob',
    agent_id: n % 4 === 0 ? 'helper' : null,
    edge_id: n % 5 === 0 ? 'e1' : null,
    edge_name: n % 5 === 0 ? 'edge-one' : null,
    manager_id: manager,
    // Spread over three minutes, two hours and two days.
    started_at: new Date(base + at).toISOString(),
  })
}

const FINAL = ['ok', 'error', 'timeout', 'denied', 'approval_required'] as const
const finished = (row: AuditRow, status: string, ms: number): AuditRow => ({
  ...row,
  status,
  duration_ms: status === 'approval_required' ? null : ms,
  finished_at: new Date(Date.parse(row.started_at) + ms).toISOString(),
  error_code: status === 'ok' ? null : status,
  error_message: status === 'ok' ? null : 'failed',
})

type Step =
  | { kind: 'start'; n: number; at: number; manager: string }
  | { kind: 'finish'; pick: number; status: (typeof FINAL)[number]; ms: number }
  | { kind: 'refused'; n: number; at: number; status: 'denied' | 'approval_required' }
  | { kind: 'replay'; pick: number }
  | { kind: 'rerun'; pick: number }
  | { kind: 'interrupt' }
  | { kind: 'flush' }

const durations = fc.oneof(
  fc.constant(0),
  fc.integer({ min: 1, max: 50 }),
  fc.integer({ min: 1, max: 3_000_000 }),
  fc.double({ min: 0, max: 1000, noNaN: true }),
)
const at = fc.oneof(fc.integer({ min: 0, max: 3 * 60_000 }), fc.integer({ min: 0, max: 2 * 86_400_000 }))
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('start' as const), n: fc.nat(10_000), at, manager: fc.constantFrom('m1', 'm2') }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('finish' as const), pick: fc.nat(), status: fc.constantFrom(...FINAL), ms: durations }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('refused' as const),
      n: fc.nat(10_000),
      at,
      status: fc.constantFrom('denied' as const, 'approval_required' as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('replay' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('rerun' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'interrupt' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'flush' as const }) },
)
// Steps are grouped into the batches one upsertMany writes.
const scenario = fc.array(fc.array(step, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 12 })

const CALL_COLUMNS = STATS_COLUMNS.filter((c) => c !== 'waits' && c !== 'wait_sum_ms' && !(WAIT_COLUMNS as string[]).includes(c))
// Fractional durations summed in another order (and taken back by rewrites) differ in the last bits.
const approx = (ms: number) => Math.round(ms * 1e6) / 1e6
const DIM_COLUMNS = { all: sql`''`, skill: sql`skill_key`, agent: sql`agent_id`, edge: sql`edge_name`, caller: sql`caller_id` }
const GRAIN_LENGTH = { m: 16, h: 13, d: 10 }

/** The rollup as it should be: a GROUP BY over the audit rows as they are, with each duration's bucket. */
async function expected(opened: OpenedDatabase): Promise<Map<string, Record<string, number>>> {
  const out = new Map<string, Record<string, number>>()
  const rows = await opened.db.selectFrom('audit_calls').selectAll().execute()
  for (const [dim, column] of Object.entries(DIM_COLUMNS)) {
    for (const [grain, length] of Object.entries(GRAIN_LENGTH)) {
      // Callers and edges are kept by the hour and the day only.
      if (grain === 'm' && (dim === 'caller' || dim === 'edge')) continue
      const groups = await sql<Record<string, unknown>>`select ${column} as value, substr(started_at, 1, ${sql.lit(length)}) as bucket, count(*) as calls,
        sum(case when status = 'ok' then 1 else 0 end) as ok,
        sum(case when status in ('error', 'timeout', 'interrupted') then 1 else 0 end) as failed,
        sum(case when status = 'denied' then 1 else 0 end) as refused,
        sum(case when status = 'approval_required' then 1 else 0 end) as approval_required,
        sum(case when status not in ('denied', 'approval_required') and duration_ms is not null then 1 else 0 end) as timed,
        coalesce(sum(case when status not in ('denied', 'approval_required') then duration_ms end), 0) as sum_ms,
        coalesce(max(case when status not in ('denied', 'approval_required') then duration_ms end), 0) as max_ms
        from audit_calls where status <> 'running' and ${column} is not null group by 1, 2`.execute(opened.db)
      for (const g of groups.rows) {
        const values: Record<string, number> = {}
        for (const c of CALL_COLUMNS) values[c] = Number(g[c] ?? 0)
        values.sum_ms = approx(values.sum_ms!)
        out.set(`${dim}|${String(g.value)}|${grain}|${String(g.bucket)}`, values)
      }
    }
  }
  // Each duration's histogram bucket, counted per key.
  for (const r of rows) {
    if (r.status === 'running' || r.duration_ms === null || r.status === 'denied' || r.status === 'approval_required') continue
    const bin = DURATION_COLUMNS[binOf(r.duration_ms, DURATION_BOUNDS)]!
    for (const [dim, value] of [
      ['all', ''],
      ['skill', r.skill_key],
      ['caller', r.caller_id],
      ['agent', r.agent_id],
      ['edge', r.edge_name],
    ] as const) {
      if (value === null) continue
      for (const [grain, length] of Object.entries(GRAIN_LENGTH)) {
        if (grain === 'm' && (dim === 'caller' || dim === 'edge')) continue
        out.get(`${dim}|${value}|${grain}|${r.started_at.slice(0, length)}`)![bin]! += 1
      }
    }
  }
  return out
}

async function actual(opened: OpenedDatabase): Promise<Map<string, Record<string, number>>> {
  const out = new Map<string, Record<string, number>>()
  for (const row of await opened.db.selectFrom('call_stats').selectAll().execute()) {
    const values: Record<string, number> = {}
    for (const c of CALL_COLUMNS) values[c] = Number(row[c])
    values.sum_ms = approx(values.sum_ms!)
    // A key whose rows all moved elsewhere is left at zero.
    if (values.calls === 0) continue
    out.set(`${row.dim}|${row.value}|${row.grain}|${row.bucket}`, values)
  }
  return out
}

describe.each(databases)('call stats on $name', (database) => {
  let opened: OpenedDatabase | undefined
  afterEach(async () => {
    await opened?.close()
    opened = undefined
  })

  it('equal a GROUP BY over the audit after random batches, replays, reruns after a wait and interruptions', async () => {
    opened = await openDatabase(await database.create())
    const db = opened
    let run = 0
    await fc.assert(
      fc.asyncProperty(scenario, async (batches) => {
        run++
        await sql`delete from audit_calls`.execute(db.db)
        await sql`delete from call_stats`.execute(db.db)
        // On SQLite, every other run takes the Kysely path (a batch inside a caller's transaction) instead of the prepared statements.
        const repo = new AuditRepository(db.db, run % 2 ? db.sqlite : undefined)
        // Each call's latest state handed to the repository.
        const current = new Map<string, AuditRow>()
        const pick = (status: (status: string) => boolean, i: number) => {
          const list = [...current.values()].filter((r) => status(r.status))
          return list.length ? list[i % list.length] : undefined
        }
        const id = (n: number) => run * 100_000 + n
        for (const batch of batches) {
          const rows = new Map<string, AuditRow>()
          const write = (row: AuditRow) => {
            current.set(row.call_id, row)
            rows.set(row.call_id, row)
          }
          for (const s of batch) {
            if (s.kind === 'start' || s.kind === 'refused') {
              const row = running(id(s.n), s.at, s.kind === 'start' ? s.manager : 'm1')
              if (current.has(row.call_id)) continue
              write(s.kind === 'start' ? row : finished(row, s.status, 0))
            } else if (s.kind === 'finish') {
              // A running row, or one markInterrupted has marked meanwhile (its manager seemed gone).
              const row = pick((status) => status === 'running', s.pick)
              if (row) write(finished(row, s.status, s.ms))
            } else if (s.kind === 'replay') {
              // A backlog replays a final row already written.
              const row = pick((status) => status !== 'running', s.pick)
              if (row) rows.set(row.call_id, row)
            } else if (s.kind === 'rerun') {
              // A call that waited for its approval runs: its running row replaces the approval_required one.
              const row = pick((status) => status === 'approval_required', s.pick)
              if (row) write({ ...row, status: 'running', error_code: null, error_message: null, finished_at: null, duration_ms: null })
            } else if (s.kind === 'interrupt') {
              await repo.upsertMany([...rows.values()])
              rows.clear()
              await repo.markInterrupted(['m2'], new Date(base).toISOString())
            } else {
              await repo.upsertMany([...rows.values()])
              rows.clear()
              await repo.flushStats()
            }
          }
          await repo.upsertMany([...rows.values()])
        }
        await repo.flushStats()
        expect(await actual(db)).toEqual(await expected(db))
      }),
      { numRuns: Number(process.env.STATS_RUNS ?? (database.name === 'sqlite' ? 60 : 25)) },
    )
  })
})

describe('percentiles from the histogram', () => {
  it(`are within ${(PERCENTILE_ERROR * 100).toFixed(1)}% of the exact nearest-rank percentile`, () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 7_000_000 }), { minLength: 1, maxLength: 300 }), fc.constantFrom(0.5, 0.95, 0.99), (values, p) => {
        const histogram = new Array<number>(DURATION_COLUMNS.length).fill(0)
        for (const v of values) histogram[binOf(v, DURATION_BOUNDS)]! += 1
        const sorted = [...values].sort((a, b) => a - b)
        const exact = sorted[Math.max(1, Math.ceil(p * sorted.length)) - 1]!
        const estimate = percentile(histogram, p, DURATION_BOUNDS, Math.max(...values))!
        expect(Math.abs(estimate - exact) / exact).toBeLessThanOrEqual(PERCENTILE_ERROR + 1e-9)
      }),
      { numRuns: 500 },
    )
  })

  it('are 0 for calls under a millisecond and null with no calls', () => {
    expect(percentile([3, 0, 0], 0.5, DURATION_BOUNDS)).toBe(0)
    expect(percentile([0, 0, 0], 0.5, DURATION_BOUNDS)).toBeNull()
  })
})

describe.each(databases)('the call stats migration on $name', (database) => {
  let opened: OpenedDatabase | undefined
  afterEach(async () => {
    await opened?.close()
    opened = undefined
  })

  it('backfills the rollup from the audit rows and settled approvals already there', async () => {
    opened = await openDatabase(await database.create())
    const db = opened
    // Rows as an older version wrote them (no stats were kept for them) over the last three days, ids
    // made as calls make them: the backfill reads a day of ids at a time.
    const threeDaysAgo = Date.now() - 3 * 86_400_000
    const nextId = monotonicFactory()
    const rows = Array.from({ length: 300 }, (_, n) => {
      const row = running(n, (n * 7_919_113) % (3 * 86_400_000), 'm1')
      row.started_at = new Date(threeDaysAgo + (Date.parse(row.started_at) - base)).toISOString()
      row.call_id = nextId(Date.parse(row.started_at))
      return n % 10 === 0 ? row : finished(row, FINAL[n % FINAL.length]!, (n * 104_729) % 5_000_000)
    }).sort((a, b) => a.call_id.localeCompare(b.call_id))
    const approval = (id: string, status: string, created: string, decided: string | null) => ({
      id,
      skill_key: 'alpha',
      class: 'mutating',
      input: '{}',
      input_hash: 'h',
      caller_id: 'k1',
      caller_name: 'alice',
      caller_kind: 'user',
      caller_user_id: null,
      caller_display_name: null,
      caller_auth: null,
      caller_key_id: null,
      agent_id: 'helper',
      conversation_id: null,
      call_id: `C-${id}`,
      reason: 'r',
      approvals_required: 1,
      approver_role: 'operator',
      sop_required: 0,
      status,
      created_at: created,
      expires_at: '2026-01-02T00:00:00.000Z',
      decided_at: decided,
      executed_call_id: null,
      seal: '',
      on_behalf_of_id: null,
      on_behalf_of_name: null,
      edge_id: null,
      edge_name: null,
    })
    await db.db
      .insertInto('approvals')
      .values([
        approval('a1', 'approved', '2026-01-01T10:00:00.000Z', '2026-01-01T10:00:30.000Z'),
        approval('a2', 'rejected', '2026-01-01T10:05:00.000Z', '2026-01-01T11:05:00.000Z'),
        approval('a3', 'expired', '2026-01-01T12:00:00.000Z', '2026-01-02T00:00:05.000Z'),
        approval('a4', 'pending', '2026-01-01T12:00:00.000Z', null),
      ])
      .execute()
    await sql`delete from call_stats`.execute(db.db)
    for (let i = 0; i < rows.length; i += 100)
      await db.db
        .insertInto('audit_calls')
        .values(rows.slice(i, i + 100))
        .execute()
    // The migration again, as it runs on a store that has rows.
    const migration = await import('./migrations/0036-call-stats.js')
    await migration.down(db.db)
    await migration.up(db.db)
    // Minute buckets are kept two days (and hours 40): older ones are not written.
    const minutesFrom = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 16)
    const kept = new Map([...(await expected(db))].filter(([key]) => !key.includes('|m|') || key.split('|')[3]! >= minutesFrom))
    expect(kept.size).toBeLessThan((await expected(db)).size)
    expect(await actual(db)).toEqual(kept)
    const waits = await db.db.selectFrom('call_stats').selectAll().where('dim', '=', 'agent').where('grain', '=', 'd').execute()
    // Decided after 30 s and an hour; expired when its time ran out (12 h): the median of three is an hour.
    const day = waits.find((w) => w.bucket === '2026-01-01')!
    expect(Number(day.waits) + Number(waits.find((w) => w.bucket === '2026-01-02')?.waits ?? 0)).toBe(3)
    const all = waits.reduce((h, w) => WAIT_COLUMNS.map((c, i) => h[i]! + Number(w[c])), new Array<number>(WAIT_COLUMNS.length).fill(0))
    const median = percentile(all, 0.5, WAIT_BOUNDS)!
    expect(Math.abs(median - 3600) / 3600).toBeLessThanOrEqual(PERCENTILE_ERROR)
  })
})
