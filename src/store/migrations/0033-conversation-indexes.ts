import type { Kysely } from 'kysely'

/**
 * A conversation's calls (an agent run's tool calls are the conversation `run:<id>`) and the
 * approvals of a conversation or of a refused call are read whole, by the run debugger, the call
 * tree and the conversation view: each gets its own index instead of a walk of the audit.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('audit_calls_conversation_id_status_idx')
    .on('audit_calls')
    .columns(['conversation_id', 'status', 'call_id'])
    .where('conversation_id', 'is not', null)
    .execute()
  await db.schema
    .createIndex('audit_calls_conversation_id_call_idx')
    .on('audit_calls')
    .columns(['conversation_id', 'call_id'])
    .where('conversation_id', 'is not', null)
    .execute()
  await db.schema.createIndex('approvals_call_id_idx').on('approvals').column('call_id').execute()
  await db.schema
    .createIndex('approvals_conversation_id_idx')
    .on('approvals')
    .columns(['conversation_id', 'created_at'])
    .where('conversation_id', 'is not', null)
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const index of [
    'audit_calls_conversation_id_status_idx',
    'audit_calls_conversation_id_call_idx',
    'approvals_call_id_idx',
    'approvals_conversation_id_idx',
  ]) {
    await db.schema.dropIndex(index).execute()
  }
}
