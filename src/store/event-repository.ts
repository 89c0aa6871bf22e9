import type { Kysely, Selectable } from 'kysely'
import type { AuditEventsTable, Database } from './database.js'

export type EventRow = Selectable<AuditEventsTable>

/** Audit events that are not calls: policy changes, approval transitions, SOP registrations. */
export class EventRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: EventRow): Promise<void> {
    await this.db.insertInto('audit_events').values(row).execute()
  }

  /** Rows with an id at or after `fromId`, oldest first. */
  async since(fromId: string, limit: number): Promise<EventRow[]> {
    return this.db.selectFrom('audit_events').selectAll().where('id', '>=', fromId).orderBy('id', 'asc').limit(limit).execute()
  }

  async list(q: { subject?: string; kind?: string; cursor?: string; limit: number }): Promise<{ items: EventRow[]; nextCursor: string | null }> {
    let query = this.db.selectFrom('audit_events').selectAll()
    if (q.subject) query = query.where('subject', '=', q.subject)
    if (q.kind) query = query.where('kind', '=', q.kind)
    if (q.cursor) query = query.where('id', '<', q.cursor)
    const rows = await query
      .orderBy('id', 'desc')
      .limit(q.limit + 1)
      .execute()
    const items = rows.slice(0, q.limit)
    return { items, nextCursor: rows.length > q.limit ? items[items.length - 1]!.id : null }
  }
}
