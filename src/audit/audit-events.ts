import { monotonicFactory } from 'ulid'
import type { EventRepository, EventRow } from '../store/index.js'

export interface Actor {
  id: string
  name: string
}

/** The actor of transitions nobody made by hand, such as an expiry. */
export const SYSTEM_ACTOR: Actor = { id: 'system', name: 'skillplane' }

export interface AuditEvent {
  id: string
  kind: string
  subject: string
  actor: Actor
  callId: string | null
  details: Record<string, unknown>
  createdAt: string
}

/** Audited changes that are not skill calls: policies, approval transitions, SOPs. */
export class AuditEvents {
  readonly #nextId = monotonicFactory()

  constructor(private readonly repo: EventRepository) {}

  async record(kind: string, subject: string, actor: Actor, details: Record<string, unknown>, callId: string | null = null): Promise<void> {
    await this.repo.insert(this.row(kind, subject, actor, details, callId))
  }

  /** The row `record` writes, for a repository that writes it in the same transaction as the change it records. */
  row(kind: string, subject: string, actor: Actor, details: Record<string, unknown>, callId: string | null = null): EventRow {
    return {
      id: this.#nextId(),
      kind,
      subject,
      actor_id: actor.id,
      actor_name: actor.name,
      call_id: callId,
      details: JSON.stringify(details),
      created_at: new Date().toISOString(),
    }
  }

  async list(q: { subject?: string; kind?: string; cursor?: string; limit: number }): Promise<{ items: AuditEvent[]; nextCursor: string | null }> {
    const page = await this.repo.list(q)
    return { items: page.items.map(toEvent), nextCursor: page.nextCursor }
  }
}

function toEvent(row: EventRow): AuditEvent {
  return {
    id: row.id,
    kind: row.kind,
    subject: row.subject,
    actor: { id: row.actor_id, name: row.actor_name },
    callId: row.call_id,
    details: JSON.parse(row.details) as Record<string, unknown>,
    createdAt: row.created_at,
  }
}
