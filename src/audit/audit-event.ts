import type { EventRow } from '../store/index.js'

export interface Actor {
  id: string
  name: string
}

export interface AuditEvent {
  id: string
  kind: string
  subject: string
  actor: Actor
  callId: string | null
  details: Record<string, unknown>
  createdAt: string
}

/** An audit_events row as the API shows it. */
export function toEvent(row: EventRow): AuditEvent {
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
