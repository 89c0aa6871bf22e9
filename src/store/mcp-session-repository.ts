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

  /** Store an event of a session's stream (`message` null for a priming event), sealed; its id and stored size. */
  async addEvent(sessionId: string, streamId: string, message: unknown, at: number): Promise<{ id: string; bytes: number }> {
    const sealed = message === null ? null : this.key().seal(JSON.stringify(message), boundTo(sessionId))
    const bytes = sealed?.length ?? 0
    // A statement prepared once: Kysely builds and prepares each query anew, which cost a call more than the call itself.
    // Outside a transaction only: one of Kysely's, open across an await, must not take this row in.
    if (this.sqlite && !this.sqlite.inTransaction) {
      this.#insertEvent ??= this.sqlite.prepare(
        'insert into mcp_events (session_id, stream_id, message, bytes, created_at) values (?, ?, ?, ?, ?) returning id',
      )
      return { id: String(this.#insertEvent.get(sessionId, streamId, sealed, bytes, at)!.id), bytes }
    }
    const row = await this.db
      .insertInto('mcp_events')
      .values({ session_id: sessionId, stream_id: streamId, message: sealed, bytes, created_at: at })
      .returning('id')
      .executeTakeFirstOrThrow()
    return { id: String(row.id), bytes }
  }

  /** The stream an event id belongs to, only if it is an event of this session. */
  async streamOf(sessionId: string, eventId: string): Promise<string | undefined> {
    const id = toEventId(eventId)
    if (id === undefined) return undefined
    const row = await this.db.selectFrom('mcp_events').select('stream_id').where('session_id', '=', sessionId).where('id', '=', id).executeTakeFirst()
    return row?.stream_id
  }

  /** The events of this session's stream stored after `eventId`, oldest first, priming events left out. */
  async eventsAfter(sessionId: string, streamId: string, eventId: string): Promise<McpEventRecord[]> {
    const id = toEventId(eventId)
    if (id === undefined) return []
    const rows = await this.db
      .selectFrom('mcp_events')
      .select(['id', 'message'])
      .where('session_id', '=', sessionId)
      .where('stream_id', '=', streamId)
      .where('id', '>', id)
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

/** An event id as stored, or undefined for anything that is not one (a foreign or made-up id finds nothing). */
function toEventId(eventId: string): number | undefined {
  if (!/^[1-9]\d{0,15}$/.test(eventId)) return undefined
  return Number(eventId)
}
