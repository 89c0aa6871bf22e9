import { monotonicFactory } from 'ulid'
import type { EventRepository, EventRow } from '../store/index.js'
import { toEvent, type Actor, type AuditEvent } from './audit-event.js'
import { EventTail } from './event-tail.js'

export type { Actor, AuditEvent } from './audit-event.js'

/** The actor of transitions nobody made by hand, such as an expiry. */
export const SYSTEM_ACTOR: Actor = { id: 'system', name: 'skillplane' }

/** Audited changes that are not skill calls: policies, approval transitions, SOPs. */
export class AuditEvents {
  readonly #nextId = monotonicFactory()
  /** Events as they are written, by any manager (the `/api/events` stream). */
  readonly tail: EventTail

  constructor(private readonly repo: EventRepository) {
    this.tail = new EventTail(repo)
  }

  async record(kind: string, subject: string, actor: Actor, details: Record<string, unknown>, callId: string | null = null): Promise<void> {
    await this.repo.insert(this.row(kind, subject, actor, details, callId))
    this.tail.poke()
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
