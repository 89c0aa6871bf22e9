import type { Kysely } from 'kysely'
import type { Database } from './database.js'

/** A stored /mcp session: what re-creates its MCP server on any manager sharing the database. */
export interface McpSessionRecord {
  id: string
  keyId: string
  role: string
  conversationId: string
  /** The client's initialize request parameters, as it sent them. */
  initialize: unknown
  createdAt: number
  lastUsed: number
}

/** A stored server-sent event to replay: its id (the Last-Event-ID a client sends back) and its JSON-RPC message. */
export interface McpEventRecord {
  id: string
  message: unknown
}

/** Sessions of /mcp and the events of their streams (migration 0038). Every event read is bound to its session. */
export class McpSessionRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(session: McpSessionRecord): Promise<void> {
    await this.db
      .insertInto('mcp_sessions')
      .values({
        id: session.id,
        key_id: session.keyId,
        role: session.role,
        conversation_id: session.conversationId,
        initialize: JSON.stringify(session.initialize),
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
      createdAt: Number(row.created_at),
      lastUsed: Number(row.last_used),
    }
  }

  /** Sessions were used at `at` (never moving their time back: another manager may have written a later one). */
  async touch(ids: readonly string[], at: number): Promise<void> {
    if (ids.length === 0) return
    await this.db.updateTable('mcp_sessions').set({ last_used: at }).where('id', 'in', ids).where('last_used', '<', at).execute()
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

  /** Store an event of a session's stream (`message` null for a priming event); its id. */
  async addEvent(sessionId: string, streamId: string, message: unknown, at: number): Promise<string> {
    const row = await this.db
      .insertInto('mcp_events')
      .values({ session_id: sessionId, stream_id: streamId, message: message === null ? null : JSON.stringify(message), created_at: at })
      .returning('id')
      .executeTakeFirstOrThrow()
    return String(row.id)
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
    return rows.map((row) => ({ id: String(row.id), message: JSON.parse(row.message!) as unknown }))
  }

  /** Keep only the newest `keep` events of a session. */
  async capEvents(sessionId: string, keep: number): Promise<void> {
    await this.db
      .deleteFrom('mcp_events')
      .where('session_id', '=', sessionId)
      .where('id', '<=', (eb) => eb.selectFrom('mcp_events').select('id').where('session_id', '=', sessionId).orderBy('id', 'desc').limit(1).offset(keep))
      .execute()
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

/** An event id as stored, or undefined for anything that is not one (a foreign or made-up id finds nothing). */
function toEventId(eventId: string): number | undefined {
  if (!/^[1-9]\d{0,15}$/.test(eventId)) return undefined
  return Number(eventId)
}
