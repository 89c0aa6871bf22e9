import { PostgresAdapter, sql, type ExpressionBuilder, type Kysely } from 'kysely'
import { encodeTime } from 'ulid'
import type SQLite from 'better-sqlite3'
import type { AuditCallsTable, Database } from './database.js'
import { StatsDeltas, type StatsRowFacts, type WaitFacts } from './call-stats.js'
import { sqliteStatsWriter, upsertStats } from './call-stats-repository.js'
import { PG_ERROR_WORDS } from './migrations/0037-audit-search.js'

export type AuditRow = AuditCallsTable

/**
 * Every status an audit row can have. A filter without a status reads each of these in turn from
 * its (column, status, call id) index, so a row with any other status would be missed there.
 */
export const AUDIT_STATUSES = ['running', 'ok', 'error', 'denied', 'timeout', 'interrupted', 'approval_required'] as const
export type AuditStatus = (typeof AUDIT_STATUSES)[number]

type FilterColumn = 'skill_key' | 'caller_id' | 'caller_name' | 'agent_id' | 'edge_id' | 'edge_name' | 'parent_call_id' | 'trace_id' | 'conversation_id'

/** The columns free text is matched against by value (few distinct values each), besides error messages. */
export type SearchColumn = 'skill_key' | 'caller_id' | 'caller_name' | 'agent_id'
export const SEARCH_COLUMNS: readonly SearchColumn[] = ['skill_key', 'caller_id', 'caller_name', 'agent_id']

/** Free text resolved for the store: a row matches one of these values, or has every word in its error message. */
export interface AuditSearch {
  values: Array<[SearchColumn, string]>
  /** Lowercase runs of letters and digits, each matching the start of a word of the message. */
  words: string[]
}

export interface AuditQuery {
  skill?: string
  status?: string
  agent?: string
  /** Caller id or caller name. */
  caller?: string
  parentCallId?: string
  /** Edge id or name. */
  edge?: string
  /** The calls of one trace (an agent run), oldest first. */
  traceId?: string
  conversationId?: string
  /** Oldest first (a trace always is). */
  oldestFirst?: boolean
  /** Free text (`q`), every other filter still applying. */
  search?: AuditSearch
  /** ISO timestamps, inclusive from, exclusive to, on started_at. */
  from?: string
  to?: string
  /** Rows older than this call id (the previous page's nextCursor). */
  cursor?: string
  limit: number
}

/** A page of rows in call order for export and retention: started_at in [from, to), after a call id. */
export interface AuditPageQuery {
  from?: string
  to?: string
  after?: string | null
  limit: number
}

// A row retention keeps: its call is still running, or an approval still pending or approved names it
// (approvals check the log for "already ran", so that evidence stays while the approval can be used).
const removable = (eb: ExpressionBuilder<Database, 'audit_calls'>) =>
  eb.and([
    eb('audit_calls.status', '!=', 'running'),
    eb.not(
      eb.exists(
        eb
          .selectFrom('approvals')
          .select('approvals.id')
          .whereRef('approvals.id', '=', 'audit_calls.approval_id')
          .where('approvals.status', 'in', ['pending', 'approved']),
      ),
    ),
  ])

// A call id is stamped with its start time (ULID; later only while the clock steps back), so a date
// range also bounds the ids, and its first page walks the primary key instead of sorting the range.
// The slack keeps rows whose id and start differ: older rows (id taken a moment before the start),
// and calls made while the clock stepped back by less than TO_SLACK_MS.
const FROM_SLACK_MS = 1_000
const TO_SLACK_MS = 10_000
const idBound = (at: string, slackMs: number) => {
  const ms = Date.parse(at)
  // An unparsable date bounds nothing (ULIDs start with 0–7).
  if (Number.isNaN(ms)) return slackMs < 0 ? '0' : '8'
  return `${encodeTime(Math.min(Math.max(ms + slackMs, 0), 2 ** 48 - 1), 10)}${(slackMs < 0 ? '0' : 'Z').repeat(16)}`
}

// The condition of the status index, repeated in queries as a literal so SQLite can use the index.
const NOT_OK = sql<boolean>`status <> 'ok'`

// How far a filter's rows are counted when choosing which index leads a pair of filters.
const DRIVER_CAP = 50_000
const LIKELY_FEWEST: FilterColumn[] = [
  'trace_id',
  'conversation_id',
  'parent_call_id',
  'edge_id',
  'edge_name',
  'agent_id',
  'caller_id',
  'caller_name',
  'skill_key',
]

// Rows per INSERT: 30 columns × 400 stays under both dialects' bound-parameter limits.
const CHUNK = 400
/** What a call's final row writes over its running row (the upsert's update list). */
export const FINAL_COLUMNS = [
  'status',
  'result',
  'result_truncated',
  'error_code',
  'error_message',
  'finished_at',
  'duration_ms',
  'approval_id',
  'trace_id',
  'grant_id',
  'spans',
] as const

const COLUMNS: ReadonlyArray<keyof AuditRow> = [
  'call_id',
  'parent_call_id',
  'skill_key',
  'caller_id',
  'caller_name',
  'caller_kind',
  'caller_role',
  'caller_user_id',
  'caller_display_name',
  'caller_auth',
  'caller_key_id',
  'agent_id',
  'conversation_id',
  'edge_id',
  'edge_name',
  'manager_id',
  'input',
  'result',
  'result_truncated',
  'error_code',
  'error_message',
  'status',
  'started_at',
  'finished_at',
  'duration_ms',
  'approval_id',
  'trace_id',
  'grant_id',
  'origin_call_id',
  'spans',
]

// PostgreSQL text can't hold NUL; callers can send it (a key, a conversation id), so it is replaced.
// A row kept in a backlog file before a column existed (grant_id, the caller's identity) has none: it is null.
const LATER_COLUMNS = ['grant_id', 'caller_user_id', 'caller_display_name', 'caller_auth', 'caller_key_id', 'origin_call_id', 'spans'] as const
function storable(row: AuditRow): AuditRow {
  let clean: AuditRow | undefined
  for (const column of LATER_COLUMNS) {
    if (row[column] !== undefined) continue
    clean ??= { ...row }
    clean[column] = null
  }
  for (const column of COLUMNS) {
    const value = row[column]
    if (typeof value === 'string' && value.includes('\u0000')) {
      clean ??= { ...row }
      ;(clean as unknown as Record<string, unknown>)[column] = value.replaceAll('\u0000', '\uFFFD')
    }
  }
  return clean ?? row
}

/** Rows a batch wrote that change the stats: a final state to count (1), or one a rewrite replaced (−1). */
type Counted = Array<[StatsRowFacts, 1 | -1]>
// A copy of what the stats read: the row object may change once its batch is done (a running row becomes final).
const facts = (row: StatsRowFacts, sign: 1 | -1): [StatsRowFacts, 1 | -1] => [
  {
    status: row.status,
    duration_ms: row.duration_ms,
    started_at: row.started_at,
    skill_key: row.skill_key,
    caller_id: row.caller_id,
    agent_id: row.agent_id,
    edge_name: row.edge_name,
  },
  sign,
]
// How long counted rows wait in memory before their stats are written (one small transaction then).
const STATS_FLUSH_MS = 1_000

// A free-text search tries this many matched values as index walks of their own; more are read as one IN list.
const MAX_VALUE_WALKS = 16

/** One conjunction of filters; the union of a query's choices is its answer. */
interface Choice {
  eq: Array<[FilterColumn, string]>
  /** A column holding one of these values (searches matching many values). */
  anyOf?: Array<[SearchColumn, string[]]>
  /** Every word in the error message. */
  words?: string[]
}

/** A choice of filters widened by free text: one choice per matched value, one for the error words. */
function searchChoices(eq: Array<[FilterColumn, string]>, search: AuditSearch): Choice[] {
  // A value that contradicts an equal filter on its column can't match; one that repeats it adds nothing.
  const values = search.values.filter(([column, value]) => eq.every(([c, v]) => c !== column || v === value))
  const choices: Choice[] = []
  if (values.length <= MAX_VALUE_WALKS) {
    for (const pair of values) choices.push({ eq: eq.some(([c]) => c === pair[0]) ? eq : [...eq, pair] })
  } else {
    const byColumn = new Map<SearchColumn, string[]>()
    for (const [column, value] of values) byColumn.set(column, [...(byColumn.get(column) ?? []), value])
    choices.push({ eq, anyOf: [...byColumn] })
  }
  if (search.words.length > 0) choices.push({ eq, words: search.words })
  return choices
}

export class AuditRepository {
  readonly #writeBatch: ((rows: AuditRow[]) => Counted) | null = null
  readonly #writeStats: ((deltas: StatsDeltas) => void) | null = null
  readonly #counts = new Map<FilterColumn, SQLite.Statement>()
  // Stats of rows committed and not yet written to call_stats; see flushStats.
  #stats = new StatsDeltas()
  #statsTimer: NodeJS.Timeout | undefined
  #statsFlushing: Promise<void> | null = null

  constructor(
    private readonly db: Kysely<Database>,
    private readonly sqlite?: SQLite.Database,
  ) {
    if (sqlite) {
      // The hot path on SQLite: prepared statements run per row inside one transaction, instead of
      // building, compiling and preparing a fresh multi-row statement through Kysely per batch.
      // Finishing a running row sets only what a finish changes from it: a column in SET has its
      // indexes rewritten even when its value stays, so approval and trace ids are left alone.
      // Prepared once per shape: a truncated result and an error each add their columns.
      const finishers: Array<SQLite.Statement | undefined> = []
      const finish = (row: AuditRow) => {
        const shape = (row.result_truncated ? 1 : 0) | (row.error_code !== null || row.error_message !== null ? 2 : 0) | (row.spans !== null ? 4 : 0)
        let statement = finishers[shape]
        if (!statement) {
          const columns = ['status', 'result', 'finished_at', 'duration_ms']
          if (shape & 1) columns.push('result_truncated')
          if (shape & 2) columns.push('error_code', 'error_message')
          if (shape & 4) columns.push('spans')
          statement = finishers[shape] = sqlite.prepare(
            `update audit_calls set ${columns.map((c) => `${c} = @${c}`).join(', ')} where call_id = @call_id and status = 'running'`,
          )
        }
        return statement.run(row).changes > 0
      }
      const insert = sqlite.prepare(
        `insert into audit_calls (${COLUMNS.join(', ')}) values (${COLUMNS.map((c) => '@' + c).join(', ')}) on conflict (call_id) do nothing`,
      )
      const before = sqlite.prepare<[string], Pick<AuditRow, 'status' | 'duration_ms'>>('select status, duration_ms from audit_calls where call_id = ?')
      const upsert = sqlite.prepare(
        `insert into audit_calls (${COLUMNS.join(', ')}) values (${COLUMNS.map((c) => '@' + c).join(', ')}) ` +
          `on conflict (call_id) do update set ${FINAL_COLUMNS.map((c) => `${c} = excluded.${c}`).join(', ')}`,
      )
      // A row counts in the stats once, in the state its write leaves it: a finish or a new final
      // row adds it; a rewrite (a replayed row, one marked interrupted meanwhile, a row that waited
      // for its approval and now runs) takes back what the state it replaces counted.
      this.#writeBatch = sqlite.transaction((rows: AuditRow[]) => {
        const counted: Counted = []
        for (const row of rows) {
          if (row.status !== 'running' && finish(row)) {
            counted.push(facts(row, 1))
            continue
          }
          if (insert.run(row).changes > 0) {
            if (row.status !== 'running') counted.push(facts(row, 1))
            continue
          }
          const old = before.get(row.call_id)!
          upsert.run(row)
          if (old.status !== 'running') counted.push(facts({ ...row, ...old }, -1))
          if (row.status !== 'running') counted.push(facts(row, 1))
        }
        return counted
      })
      const writeStats = sqliteStatsWriter(sqlite)
      this.#writeStats = sqlite.transaction((deltas: StatsDeltas) => writeStats(deltas.entries()))
    }
  }

  /** Insert new rows and finish running ones: one transaction per batch (the group commit's unit). */
  async upsertMany(input: AuditRow[]): Promise<void> {
    if (input.length === 0) return
    const rows = input.map(storable)
    // Inside a Kysely transaction on the shared connection the batch would join it (and vanish with
    // a rollback): then wait for the connection through Kysely instead.
    if (this.#writeBatch && !this.sqlite!.inTransaction) return this.#counted(this.#writeBatch(rows))
    const write = async (db: Kysely<Database>) => {
      const counted: Counted = []
      for (let i = 0; i < rows.length; i += CHUNK) {
        const chunk = rows.slice(i, i + CHUNK)
        const previous = db
          .selectFrom('audit_calls')
          .select(['call_id', 'status', 'duration_ms'])
          .where(
            'call_id',
            'in',
            chunk.map((r) => r.call_id),
          )
        const upsert = db
          .insertInto('audit_calls')
          .values(chunk)
          .onConflict((oc) => oc.column('call_id').doUpdateSet((eb) => Object.fromEntries(FINAL_COLUMNS.map((c) => [c, eb.ref(`excluded.${c}`)]))))
        let old: Array<Pick<AuditRow, 'call_id' | 'status' | 'duration_ms'>>
        if (!(db.getExecutor().adapter instanceof PostgresAdapter)) {
          // SQLite has one writer: reading first is enough.
          old = await previous.execute()
          await upsert.execute()
        } else {
          // What the rows were before this write, read in the same statement (every part of one
          // statement sees the same snapshot) and locked, so a concurrent markInterrupted waits.
          old = await db
            .with('old', () => previous.forUpdate())
            .with('written', () => upsert.returning('call_id'))
            .selectFrom('old')
            .selectAll()
            .execute()
        }
        const before = new Map(old.map((o) => [o.call_id, o]))
        for (const row of chunk) {
          const was = before.get(row.call_id)
          if (was && was.status !== 'running')
            counted.push(facts({ ...row, status: was.status, duration_ms: was.duration_ms === null ? null : Number(was.duration_ms) }, -1))
          if (row.status !== 'running') counted.push(facts(row, 1))
        }
      }
      return counted
    }
    this.#counted(rows.length <= CHUNK ? await write(this.db) : await this.db.transaction().execute(write))
  }

  // Applied once the batch committed: a batch rolled back counts nothing.
  #counted(counted: Counted): void {
    if (counted.length === 0) return
    for (const [row, sign] of counted) this.#stats.row(row, sign)
    this.#schedule()
  }

  #schedule(): void {
    this.#statsTimer ??= setTimeout(() => {
      this.#statsTimer = undefined
      void this.flushStats().catch(() => {})
    }, STATS_FLUSH_MS).unref()
  }

  /** An approval stopped waiting for a decision: its wait counts in the stats. */
  countWait(wait: WaitFacts): void {
    this.#stats.wait(wait)
    this.#schedule()
  }

  /**
   * Write the stats of rows committed so far to call_stats (one transaction). Counting in memory and
   * writing once a second keeps the audit's group commit as fast as without stats; the price is that
   * a process killed outright loses its last second of counts (never audit rows). Reads flush first.
   */
  async flushStats(): Promise<void> {
    // Another flush's failure is its own: its counts are kept for the next one.
    while (this.#statsFlushing) await this.#statsFlushing.catch(() => {})
    if (this.#stats.size === 0) return
    const deltas = this.#stats
    this.#stats = new StatsDeltas()
    clearTimeout(this.#statsTimer)
    this.#statsTimer = undefined
    const write = async () => {
      if (this.#writeStats && !this.sqlite!.inTransaction) this.#writeStats(deltas)
      else await this.db.transaction().execute((trx) => upsertStats(trx, deltas.entries()))
    }
    this.#statsFlushing = write()
      .catch((error: unknown) => {
        // Kept for the next flush: the database may be back by then.
        deltas.merge(this.#stats)
        this.#stats = deltas
        this.#schedule()
        throw error
      })
      .finally(() => (this.#statsFlushing = null))
    await this.#statsFlushing
  }

  /** Whether a call ran with this approval: refused calls carry its id too, but never got this far. */
  async ranWithApproval(approvalId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('audit_calls')
      .select('call_id')
      .where('approval_id', '=', approvalId)
      .where((eb) => eb.or([eb('status', 'in', ['running', 'ok', 'timeout']), eb('error_code', 'in', ['executor_error', 'invalid_output'])]))
      .executeTakeFirst()
    return row !== undefined
  }

  async get(callId: string): Promise<AuditRow | undefined> {
    return this.db.selectFrom('audit_calls').selectAll().where('call_id', '=', callId).executeTakeFirst()
  }

  async query(q: AuditQuery): Promise<{ items: AuditRow[]; nextCursor: string | null }> {
    // A trace reads in the order its calls were made; everything else newest first.
    const ascending = q.traceId !== undefined || q.oldestFirst === true
    const direction = ascending ? 'asc' : 'desc'
    const n = Math.trunc(q.limit) + 1
    // Caller and edge match an id or a name: one branch per combination, each an ordered walk of
    // its own index; a single OR would read every matching row and sort them.
    let choices: Choice[] = [{ eq: [] }]
    for (const [value, columns] of [
      [q.caller, ['caller_id', 'caller_name']],
      [q.edge, ['edge_id', 'edge_name']],
    ] as const) {
      if (value === undefined || value === '') continue
      choices = choices.flatMap((chosen) => columns.map((column) => ({ eq: [...chosen.eq, [column, value] as [FilterColumn, string]] })))
    }
    for (const { eq } of choices) {
      if (q.skill) eq.push(['skill_key', q.skill])
      if (q.agent) eq.push(['agent_id', q.agent])
      if (q.parentCallId) eq.push(['parent_call_id', q.parentCallId])
      if (q.traceId) eq.push(['trace_id', q.traceId])
      if (q.conversationId) eq.push(['conversation_id', q.conversationId])
    }
    if (q.search) choices = choices.flatMap((chosen) => searchChoices(chosen.eq, q.search!))
    if (choices.length === 0) return { items: [], nextCursor: null }
    let rows: AuditRow[]
    if (choices.length === 1 && choices[0]!.eq.length === 0 && !choices[0]!.words && !choices[0]!.anyOf) {
      // Status or dates alone: the status index (rows not ok) or the key.
      let query = this.db.selectFrom('audit_calls').selectAll()
      if (q.from) query = query.where('started_at', '>=', q.from).where('call_id', '>=', idBound(q.from, -FROM_SLACK_MS))
      if (q.to) query = query.where('started_at', '<', q.to).where('call_id', '<', idBound(q.to, TO_SLACK_MS))
      if (q.cursor) query = query.where('call_id', ascending ? '>' : '<', q.cursor)
      // SQLite uses a partial index only when the query repeats its condition word for word.
      if (q.status) query = query.where('status', '=', q.status).$if(q.status !== 'ok', (qb) => qb.where(NOT_OK))
      rows = await query.orderBy('call_id', direction).limit(n).execute()
    } else {
      // Every filter column's index is (column, status, call id). A branch takes one status and one
      // choice of columns: it walks the leading column's index for that status in call order and
      // finds each id in the other columns' indexes (a merge of sorted ids, never a table row), so
      // it costs its first page however rarely the filters meet, and at most the leading column's
      // rows when they never do. The union's few ids are sorted and their rows read by key.
      const walks = choices.filter((chosen) => !chosen.words && !chosen.anyOf)
      const drivers = this.#drivers(walks.map((chosen) => chosen.eq))
      const order = sql.raw(direction)
      const later = sql.raw(ascending ? '>' : '<')
      const branches = walks.flatMap(({ eq: chosen }, c) => {
        const ordered = [...chosen].sort(([a], [b]) => Number(b === drivers[c]) - Number(a === drivers[c]))
        return (q.status ? [q.status] : AUDIT_STATUSES).map((status) => {
          const t = (i: number) => sql.id(`t${i}`)
          // SQLite has no statistics to choose by: each alias is held to its column's index.
          const via = (column: FilterColumn) => (this.sqlite ? sql` indexed by ${sql.id(`audit_calls_${column}_status_idx`)}` : sql``)
          const tables = ordered.map(([column], i) =>
            i === 0 ? sql`audit_calls as t0${via(column)}` : sql`join audit_calls as ${t(i)}${via(column)} on ${t(i)}.call_id = t0.call_id`,
          )
          const where = ordered.flatMap(([column, value], i) => [sql`${t(i)}.${sql.id(column)} = ${value}`, sql`${t(i)}.status = ${status}`])
          // Dates bound the ids on the leading index; the exact start is read only for rows every filter met.
          const last = t(ordered.length - 1)
          if (q.from) where.push(sql`t0.call_id >= ${idBound(q.from, -FROM_SLACK_MS)}`, sql`${last}.started_at >= ${q.from}`)
          if (q.to) where.push(sql`t0.call_id < ${idBound(q.to, TO_SLACK_MS)}`, sql`${last}.started_at < ${q.to}`)
          if (q.cursor) where.push(sql`t0.call_id ${later} ${q.cursor}`)
          return sql`select call_id from (select t0.call_id from ${sql.join(tables, sql` `)} where ${sql.join(where, sql` and `)} order by t0.call_id ${order} limit ${sql.lit(n)}) as b`
        })
      })
      // Error words read every row they match (one row each), then sort; many matched values walk
      // the key newest first, checking each row, until a page is found.
      for (const chosen of choices) {
        if (!chosen.words && !chosen.anyOf) continue
        // On SQLite the words index holds each hit's call id: rows are read only for filters it can't answer.
        // A status other than ok is found in the status index (status, call id), not the row.
        const byStatusIndex = q.status !== undefined && q.status !== 'ok'
        const wordsAlone = this.sqlite && chosen.words && chosen.eq.length === 0 && (!q.status || byStatusIndex) && !q.from && !q.to
        const id = wordsAlone ? sql`s.call_id` : sql`a.call_id`
        const where = chosen.eq.map(([column, value]) => sql`a.${sql.id(column)} = ${value}`)
        if (wordsAlone && q.status) {
          where.push(
            sql`exists (select 1 from audit_calls as st indexed by audit_calls_status_idx where st.call_id = s.call_id and st.status = ${q.status} and ${NOT_OK})`,
          )
        }
        if (chosen.anyOf)
          where.push(
            sql`(${sql.join(
              chosen.anyOf.map(([column, values]) => sql`a.${sql.id(column)} in (${sql.join(values)})`),
              sql` or `,
            )})`,
          )
        if (q.status && !wordsAlone) where.push(sql`a.status = ${q.status}`)
        if (q.from) where.push(sql`a.call_id >= ${idBound(q.from, -FROM_SLACK_MS)}`, sql`a.started_at >= ${q.from}`)
        if (q.to) where.push(sql`a.call_id < ${idBound(q.to, TO_SLACK_MS)}`, sql`a.started_at < ${q.to}`)
        if (q.cursor) where.push(sql`${id} ${later} ${q.cursor}`)
        // SQLite would walk an IN list's index and sort everything it holds; the key stops at a page.
        let from = this.sqlite ? sql`audit_calls as a indexed by sqlite_autoindex_audit_calls_1` : sql`audit_calls as a`
        if (chosen.words && this.sqlite) {
          const match = sql`s.audit_search match ${chosen.words.map((word) => `"${word}"*`).join(' AND ')}`
          // The words index drives (cross join keeps SQLite from scanning the audit and probing it).
          from = wordsAlone ? sql`audit_search as s` : sql`audit_search as s cross join audit_calls as a on a.rowid = s.rowid`
          where.unshift(match)
        } else if (chosen.words) {
          // The words index first, then the hits' rows by key: left to itself, PostgreSQL walks the key
          // newest first checking every message, the whole table for rare words (OFFSET 0 keeps them apart).
          const words = sql`${sql.raw(PG_ERROR_WORDS)} @@ to_tsquery('simple', ${chosen.words.map((word) => `'${word}':*`).join(' & ')})`
          from = sql`(select call_id as hit from audit_calls where error_message is not null and ${words} offset 0) as h join audit_calls as a on a.call_id = h.hit`
          if (where.length === 0) where.push(sql`true`)
        }
        branches.push(
          sql`select call_id from (select ${id} as call_id from ${from} where ${sql.join(where, sql` and `)} order by ${id} ${order} limit ${sql.lit(n)}) as w`,
        )
      }
      // A literal LIMIT: SQLite stops a subquery at a bound one only after reading it all; DISTINCT for
      // a row found twice (an id equal to a name).
      const found =
        await sql<AuditRow>`select a.* from (select distinct call_id from (${sql.join(branches, sql` union all `)}) as branches) as ids join audit_calls as a on a.call_id = ids.call_id order by a.call_id ${order} limit ${n}`.execute(
          this.db,
        )
      rows = found.rows
    }
    const items = rows.slice(0, q.limit)
    return { items, nextCursor: rows.length > q.limit ? items[items.length - 1]!.call_id : null }
  }

  /**
   * The distinct values of a column the free-text search matches by value, from its index: one
   * seek per value (a loose index scan), not a read of the rows.
   */
  async distinctValues(column: SearchColumn): Promise<string[]> {
    const c = sql.id(column)
    const { rows } = await sql<{ v: string | null }>`with recursive vs(v) as (
        select min(${c}) from audit_calls where ${c} is not null
        union all select (select min(${c}) from audit_calls where ${c} > vs.v) from vs where vs.v is not null
      ) select v from vs where v is not null`.execute(this.db)
    return rows.map((row) => row.v!)
  }

  /**
   * For each choice of filter columns, the column whose index walk is shortest: the one holding
   * the fewest rows with its value, counted from the index alone, each count stopping at the
   * fewest found so far (and at DRIVER_CAP: two filters that both match more rows than that cost a
   * walk of the leader's rows). PostgreSQL's planner has the statistics autovacuum gathers.
   */
  #drivers(choices: Array<Array<[FilterColumn, string]>>): Array<FilterColumn | undefined> {
    if (!this.sqlite || choices.every((chosen) => chosen.length < 2)) return choices.map((chosen) => chosen[0]?.[0])
    const counted = new Map<string, number>()
    return choices.map((chosen) => {
      let best: [FilterColumn, number] | undefined
      // Columns that usually hold few rows per value first, so the later counts stop early.
      for (const [column, value] of [...chosen].sort(([a], [b]) => LIKELY_FEWEST.indexOf(a) - LIKELY_FEWEST.indexOf(b))) {
        const key = `${column}=${value}`
        const cap = best ? best[1] : DRIVER_CAP
        let n = counted.get(key)
        if (n === undefined || (n >= cap && n < DRIVER_CAP)) {
          n = (this.#count(column).get(value, cap) as { n: number }).n
          if (n < cap || cap === DRIVER_CAP) counted.set(key, n)
        }
        if (!best || n < best[1]) best = [column, n]
      }
      return best![0]
    })
  }

  #count(column: FilterColumn): SQLite.Statement {
    let statement = this.#counts.get(column)
    if (!statement) {
      statement = this.sqlite!.prepare(`select count(*) as n from (select 1 from audit_calls where ${column} = ? limit ?)`)
      this.#counts.set(column, statement)
    }
    return statement
  }

  /**
   * Calls and failures per time bucket in [from, to) with the query's filters, for the console's
   * chart. Buckets are the leading characters of the ISO `started_at` (both dialects' substr), so
   * a bucket is a minute, an hour or a day in UTC. Only non-empty buckets come back.
   */
  async histogram(q: Omit<AuditQuery, 'cursor' | 'limit' | 'from' | 'to' | 'search'> & { from: string; to: string; prefix: 10 | 13 | 16 }) {
    const bucket = sql<string>`substr(started_at, 1, ${sql.lit(q.prefix)})`
    let query = this.db
      .selectFrom('audit_calls')
      .select([
        bucket.as('bucket'),
        (eb) => eb.fn.countAll<number | string>().as('calls'),
        sql<number | string>`sum(case when status in ('error', 'denied', 'timeout', 'interrupted') then 1 else 0 end)`.as('failed'),
      ])
      .where('started_at', '>=', q.from)
      .where('call_id', '>=', idBound(q.from, -FROM_SLACK_MS))
      .where('started_at', '<', q.to)
      .where('call_id', '<', idBound(q.to, TO_SLACK_MS))
    if (q.caller) query = query.where((eb) => eb.or([eb('caller_id', '=', q.caller!), eb('caller_name', '=', q.caller!)]))
    if (q.edge) query = query.where((eb) => eb.or([eb('edge_id', '=', q.edge!), eb('edge_name', '=', q.edge!)]))
    if (q.skill) query = query.where('skill_key', '=', q.skill)
    if (q.status) query = query.where('status', '=', q.status).$if(q.status !== 'ok', (qb) => qb.where(NOT_OK))
    if (q.agent) query = query.where('agent_id', '=', q.agent)
    if (q.parentCallId) query = query.where('parent_call_id', '=', q.parentCallId)
    if (q.traceId) query = query.where('trace_id', '=', q.traceId)
    if (q.conversationId) query = query.where('conversation_id', '=', q.conversationId)
    const rows = await query.groupBy(bucket).orderBy(bucket).execute()
    // PostgreSQL's count and sum are bigints, which pg hands over as strings.
    return rows.map((r) => ({ bucket: r.bucket, calls: Number(r.calls), failed: Number(r.failed) }))
  }

  /**
   * The skills one caller called ok most often since a moment (ms since the epoch), most first.
   * Call ids are ULIDs, time first: the caller's index on (caller_id, call_id) bounds the scan.
   */
  async mostCalled(q: { callerId: string; since: number; limit: number }): Promise<Array<{ skill: string; calls: number }>> {
    const rows = await this.db
      .selectFrom('audit_calls')
      .select((eb) => ['skill_key', eb.fn.countAll<number | string | bigint>().as('calls')])
      .where('caller_id', '=', q.callerId)
      .where('call_id', '>=', `${encodeTime(q.since, 10)}${'0'.repeat(16)}`)
      .where('status', '=', 'ok')
      .groupBy('skill_key')
      .orderBy('calls', 'desc')
      .orderBy('skill_key')
      .limit(q.limit)
      .execute()
    return rows.map((row) => ({ skill: row.skill_key, calls: Number(row.calls) }))
  }

  /** Rows oldest call first, one page; `removable` keeps to rows retention may delete. */
  async page(q: AuditPageQuery & { removable?: boolean }): Promise<AuditRow[]> {
    let query = this.db.selectFrom('audit_calls').selectAll()
    // The id bounds let a page stop walking the key at the range's end, as query() does.
    if (q.from) query = query.where('started_at', '>=', q.from).where('call_id', '>=', idBound(q.from, -FROM_SLACK_MS))
    if (q.to) query = query.where('started_at', '<', q.to).where('call_id', '<', idBound(q.to, TO_SLACK_MS))
    if (q.after) query = query.where('call_id', '>', q.after)
    if (q.removable) query = query.where(removable)
    return query.orderBy('call_id', 'asc').limit(q.limit).execute()
  }

  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('audit_calls')
      .select((eb) => eb.fn.countAll<number | string | bigint>().as('n'))
      .executeTakeFirstOrThrow()
    return Number(row.n)
  }

  /** Delete these calls in one statement, skipping any that became unremovable meanwhile; how many went. */
  async deleteCalls(callIds: string[]): Promise<number> {
    if (callIds.length === 0) return 0
    const result = await this.db.deleteFrom('audit_calls').where('call_id', 'in', callIds).where(removable).executeTakeFirst()
    return Number(result.numDeletedRows)
  }

  /** Rows still `running` whose manager is not alive were cut off by a crash. */
  async markInterrupted(aliveManagerIds: string[], now: string): Promise<number> {
    let query = this.db
      .updateTable('audit_calls')
      .set({
        status: 'interrupted',
        error_code: 'unavailable',
        error_message: 'the call was interrupted: its manager process stopped before it finished',
        finished_at: now,
      })
      .where('status', '=', 'running')
      .where(NOT_OK)
    if (aliveManagerIds.length > 0) query = query.where('manager_id', 'not in', aliveManagerIds)
    const marked = await query.returning(['status', 'duration_ms', 'started_at', 'skill_key', 'caller_id', 'agent_id', 'edge_name']).execute()
    this.#counted(marked.map((row) => [row, 1]))
    return marked.length
  }
}
