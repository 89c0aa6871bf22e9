import type { Kysely } from 'kysely'

// The filters other than status and dates: dense columns (every row has one) and sparse ones (only
// some rows do, so their indexes hold only those).
const DENSE = ['skill_key', 'caller_id', 'caller_name'] as const
const SPARSE = ['agent_id', 'edge_id', 'edge_name', 'parent_call_id', 'trace_id'] as const

/**
 * Each filter's index gains status before the call id, so a filter paired with a status is one
 * seek, whichever way the rows meet (or never do), instead of a walk of either side's rows that
 * costs whatever the smaller side holds; a filter alone reads each status's newest rows and merges them.
 */
export async function up(db: Kysely<any>): Promise<void> {
  for (const column of DENSE) {
    await db.schema.dropIndex(`audit_calls_${column}_idx`).execute()
    await db.schema.createIndex(`audit_calls_${column}_status_idx`).on('audit_calls').columns([column, 'status', 'call_id']).execute()
  }
  for (const column of SPARSE) {
    await db.schema.dropIndex(`audit_calls_${column}_idx`).execute()
    await db.schema
      .createIndex(`audit_calls_${column}_status_idx`)
      .on('audit_calls')
      .columns([column, 'status', 'call_id'])
      .where(column, 'is not', null)
      .execute()
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of [...DENSE, ...SPARSE]) await db.schema.dropIndex(`audit_calls_${column}_status_idx`).execute()
  for (const column of DENSE) await db.schema.createIndex(`audit_calls_${column}_idx`).on('audit_calls').columns([column, 'call_id']).execute()
  for (const column of SPARSE) {
    await db.schema.createIndex(`audit_calls_${column}_idx`).on('audit_calls').columns([column, 'call_id']).where(column, 'is not', null).execute()
  }
}
