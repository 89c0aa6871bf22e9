import { sql, type Kysely } from 'kysely'
import type SQLite from 'better-sqlite3'
import type { Database } from './database.js'

/** What seals stored event messages: the secrets key (AES-256-GCM, `boundTo` its associated data). */
export interface MessageSealer {
  seal(value: string, boundTo: string): string
  /** The value, or null when sealed under another key or bound to something else. */
  open(sealed: string, boundTo: string): string | null
}

/** A stored /mcp session: what re-creates its MCP server on any manager sharing the database. */
export interface McpSessionRecord {
  id: string
  keyId: string
  role: string
  conversationId: string
  /** The client's initialize request parameters, as it sent them. */
  initialize: unknown
  /** The level its client set with logging/setLevel, or null. */
  logLevel: string | null
  /** The manager serving it, or null. */
  holder: string | null
  createdAt: number
  lastUsed: number
}

/** An event to store: its session, its stream, its message (null for a priming event) and when (milliseconds since the epoch). */
export interface NewMcpEvent {
  sessionId: string
  streamId: string
  message: unknown
  at: number
}

/**
 * A stored server-sent event to replay: its id (the Last-Event-ID a client sends back) and its
 * JSON-RPC message, null when it no longer opens (the secrets key was rotated, or the row was moved from another session).
 */
export interface McpEventRecord {
  id: string
  message: unknown
}

/**
 * Sessions of /mcp and the events of their streams (migration 0038). Every event read is bound to
 * its session; event messages are sealed with the secrets key (`key()`: the current one), bound to their session.
 */
export class McpSessionRepository {
  #insertEvent: SQLite.Statement<unknown[], { id: number | bigint }> | undefined
  #insertEvents: ((rows: Array<{ session_id: string; stream_id: string; message: string | null; bytes: number; created_at: number }>) => number[]) | undefined

  constructor(
    private readonly db: Kysely<Database>,
    private readonly key: () => MessageSealer,
    /** SQLite's connection: events are written with one statement prepared once (two per call: building each cost more than the call). */
    private readonly sqlite?: SQLite.Database,
  ) {}

  async insert(session: McpSessionRecord): Promise<void> {
    await this.db
      .insertInto('mcp_sessions')
      .values({
        id: session.id,
        key_id: session.keyId,
        role: session.role,
        conversation_id: session.conversationId,
        initialize: JSON.stringify(session.initialize),
        log_level: session.logLevel,
        holder: session.holder,
        created_at: session.createdAt,
        last_used: session.lastUsed,
      })
      .execute()
  }

  async find(id: string): Promise<McpSessionRecord | undefined> {
    const row = await this.db.selectFrom('mcp_sessions').selectAll().where('id', '=', id).executeTakeFirst()
    if (!row) return undefined
    return {
      id: row.id,
      keyId: row.key_id,
      role: row.role,
      conversationId: row.conversation_id,
      initialize: JSON.parse(row.initialize) as unknown,
      logLevel: row.log_level,
      holder: row.holder,
      createdAt: Number(row.created_at),
      lastUsed: Number(row.last_used),
    }
  }

  /** Sessions were used at `at` (never moving their time back: another manager may have written a later one). */
  async touch(ids: readonly string[], at: number): Promise<void> {
    if (ids.length === 0) return
    await this.db.updateTable('mcp_sessions').set({ last_used: at }).where('id', 'in', ids).where('last_used', '<', at).execute()
  }

  /** Make `holder` the session's manager if `from` still is (null: none): false when another manager took it first. */
  async claim(id: string, holder: string, from: string | null): Promise<boolean> {
    const result = await this.db
      .updateTable('mcp_sessions')
      .set({ holder })
      .where('id', '=', id)
      .where('holder', from === null ? 'is' : '=', from)
      .executeTakeFirst()
    return Number(result.numUpdatedRows) === 1
  }

  /** The sessions `holder` served are no one's now (it stops): any manager may re-open them. */
  async release(ids: readonly string[], holder: string): Promise<void> {
    if (ids.length === 0) return
    await this.db.updateTable('mcp_sessions').set({ holder: null }).where('id', 'in', ids).where('holder', '=', holder).execute()
  }

  /** Keep the logging level the session's client set. */
  async setLogLevel(id: string, level: string): Promise<void> {
    await this.db.updateTable('mcp_sessions').set({ log_level: level }).where('id', '=', id).execute()
  }

  /** Forget a session and its events. */
  async remove(id: string): Promise<void> {
    await this.db.deleteFrom('mcp_events').where('session_id', '=', id).execute()
    await this.db.deleteFrom('mcp_sessions').where('id', '=', id).execute()
  }

  /** Forget the sessions last used at or before `before`, with their events; their ids. */
  async removeIdle(before: number): Promise<string[]> {
    const gone = await this.db.deleteFrom('mcp_sessions').where('last_used', '<=', before).returning('id').execute()
    const ids = gone.map((row) => row.id)
    if (ids.length > 0) await this.db.deleteFrom('mcp_events').where('session_id', 'in', ids).execute()
    return ids
  }

  /**
   * Store events of sessions' streams (`message` null for a priming event), sealed, in one transaction:
   * each one's id (increasing in the order given) and stored size.
   */
  async addEvents(events: readonly NewMcpEvent[]): Promise<Array<{ id: number; bytes: number }>> {
    if (events.length === 0) return []
    const key = this.key()
    const rows = events.map((event) => {
      const sealed = event.message === null ? null : key.seal(JSON.stringify(event.message), boundTo(event.sessionId))
      return { session_id: event.sessionId, stream_id: event.streamId, message: sealed, bytes: sealed?.length ?? 0, created_at: event.at }
    })
    // A statement prepared once, run per row in one transaction: Kysely builds and prepares each query anew, which cost a call more than the call itself.
    // Outside a transaction only: one of Kysely's, open across an await, must not take these rows in.
    if (this.sqlite && !this.sqlite.inTransaction) {
      this.#insertEvent ??= this.sqlite.prepare(
        'insert into mcp_events (session_id, stream_id, message, bytes, created_at) values (?, ?, ?, ?, ?) returning id',
      )
      const insert = this.#insertEvent
      this.#insertEvents ??= this.sqlite.transaction((batch: typeof rows) =>
        batch.map((row) => Number(insert.get(row.session_id, row.stream_id, row.message, row.bytes, row.created_at)!.id)),
      )
      return this.#insertEvents(rows).map((id, i) => ({ id, bytes: rows[i]!.bytes }))
    }
    // One statement, atomic on its own: its ids are drawn in the order of its rows, whatever order RETURNING gives them in.
    const ids = (await this.db.insertInto('mcp_events').values(rows).returning('id').execute()).map((row) => Number(row.id)).sort((a, b) => a - b)
    return ids.map((id, i) => ({ id, bytes: rows[i]!.bytes }))
  }

  /** The stream an event id names, only if the event it is or starts after is one of this session's (stored, not yet pruned). */
  async streamOf(sessionId: string, eventId: string): Promise<string | undefined> {
    const parsed = parseEventId(eventId)
    if (parsed === undefined) return undefined
    const row = await this.db.selectFrom('mcp_events').select('stream_id').where('session_id', '=', sessionId).where('id', '=', parsed.row).executeTakeFirst()
    return row && (parsed.stream ?? row.stream_id)
  }

  /** The events of this session's stream stored after `eventId`, oldest first, priming events left out. */
  async eventsAfter(sessionId: string, streamId: string, eventId: string): Promise<McpEventRecord[]> {
    const parsed = parseEventId(eventId)
    if (parsed === undefined) return []
    const rows = await this.db
      .selectFrom('mcp_events')
      .select(['id', 'message'])
      .where('session_id', '=', sessionId)
      .where('stream_id', '=', streamId)
      .where('id', '>', parsed.row)
      .where('message', 'is not', null)
      .orderBy('id')
      .execute()
    const key = this.key()
    return rows.map((row) => {
      const opened = key.open(row.message!, boundTo(sessionId))
      return { id: String(row.id), message: opened === null ? null : (JSON.parse(opened) as unknown) }
    })
  }

  /** Keep only the newest events of a session: at most `keep` of them, together at most `maxBytes` as stored. */
  async capEvents(sessionId: string, keep: number, maxBytes: number): Promise<void> {
    // The oldest event past either cap, counting from the newest: it and all before it go.
    const newest = this.db
      .selectFrom('mcp_events')
      .select(['id', sql<number>`row_number() over (order by id desc)`.as('n'), sql<number>`sum(bytes) over (order by id desc)`.as('total')])
      .where('session_id', '=', sessionId)
    const cut = await this.db
      .selectFrom(newest.as('ranked'))
      .select((eb) => eb.fn.max('ranked.id').as('id'))
      .where((eb) => eb.or([eb('ranked.n', '>', keep), eb('ranked.total', '>', maxBytes)]))
      .executeTakeFirst()
    if (cut?.id === null || cut?.id === undefined) return
    await this.db.deleteFrom('mcp_events').where('session_id', '=', sessionId).where('id', '<=', cut.id).execute()
  }

  /** Delete the events stored at or before `before`, whatever their session. */
  async pruneEvents(before: number): Promise<void> {
    await this.db.deleteFrom('mcp_events').where('created_at', '<=', before).execute()
  }

  /** How many events a session holds (for its cap's tests and the docs' limits). */
  async countEvents(sessionId: string): Promise<number> {
    const row = await this.db
      .selectFrom('mcp_events')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('session_id', '=', sessionId)
      .executeTakeFirstOrThrow()
    return Number(row.n)
  }
}

// The associated data an event's message is sealed with: a row moved to another session no longer opens.
const boundTo = (sessionId: string) => `mcp_events ${sessionId}`

/**
 * The id of a stream's start that stores no event of its own (its priming event): the stream's events are
 * those after `after`, the id of an event of the same session stored before the stream began (on any stream).
 * Like an event's id, it finds something only in that session, and only while that event is kept: once the
 * event is trimmed or pruned, events after it may be too, and resuming from it is refused rather than missing them.
 */
export function streamStartId(after: number, streamId: string): string {
  return `${after}.${streamId}`
}

/**
 * What an event id names: a stored event (`row`), or the start of `stream` after event `row`;
 * undefined for anything else (a made-up or malformed id finds nothing).
 */
function parseEventId(eventId: string): { row: number; stream?: string } | undefined {
  const match = /^([1-9]\d{0,15})(?:\.([\w-]{1,100}))?$/.exec(eventId)
  if (!match) return undefined
  return { row: Number(match[1]), ...(match[2] !== undefined && { stream: match[2] }) }
}
