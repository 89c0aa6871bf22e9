import type { Kysely } from 'kysely'

// Columns empty for most calls (no agent, no parent, no trace, no edge, no approval): their
// indexes hold only the rows that have a value, so an ordinary call writes none of their pages.
const SPARSE = ['agent_id', 'parent_call_id', 'trace_id', 'edge_id', 'approval_id'] as const

/**
 * The audit table's indexes cut to what the documented filters need, so a call's two commits
 * write fewer pages: status holds only rows not `ok` (running ones for recovery, errors for the
 * filter; an `ok` filter walks the key), sparse columns get partial indexes, and started_at has
 * none (date ranges bound the call id, which starts with the time).
 */
export async function up(db: Kysely<any>): Promise<void> {
  for (const name of [
    'audit_calls_started_at_idx',
    'audit_calls_status_idx',
    'audit_calls_agent_id_idx',
    'audit_calls_parent_call_id_idx',
    'audit_calls_trace_id',
    'audit_calls_edge_idx',
    'audit_calls_approval_id_idx',
  ]) {
    await db.schema.dropIndex(name).execute()
  }
  await db.schema.createIndex('audit_calls_status_idx').on('audit_calls').columns(['status', 'call_id']).where('status', '!=', 'ok').execute()
  for (const column of SPARSE) {
    await db.schema.createIndex(`audit_calls_${column}_idx`).on('audit_calls').columns([column, 'call_id']).where(column, 'is not', null).execute()
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ['status', ...SPARSE]) await db.schema.dropIndex(`audit_calls_${column}_idx`).execute()
  for (const column of ['status', 'agent_id', 'parent_call_id']) {
    await db.schema.createIndex(`audit_calls_${column}_idx`).on('audit_calls').columns([column, 'call_id']).execute()
  }
  await db.schema.createIndex('audit_calls_started_at_idx').on('audit_calls').column('started_at').execute()
  await db.schema.createIndex('audit_calls_trace_id').on('audit_calls').column('trace_id').execute()
  await db.schema.createIndex('audit_calls_edge_idx').on('audit_calls').columns(['edge_id', 'call_id']).execute()
  await db.schema.createIndex('audit_calls_approval_id_idx').on('audit_calls').column('approval_id').execute()
}
