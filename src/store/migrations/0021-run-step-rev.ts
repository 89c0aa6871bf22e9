import { sql, type Kysely } from 'kysely'

/**
 * Each run step carries `rev`, the run-wide number of the write that last stored or changed it, so
 * a reader follows a run by asking for what changed after the number it saw last (a step paused
 * for approval changes when the run resumes, so its index alone would not tell).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('agent_run_steps')
    .addColumn('rev', 'integer', (c) => c.notNull().defaultTo(0))
    .execute()
  // Steps stored before: one write each, in order.
  await db
    .updateTable('agent_run_steps')
    .set({ rev: sql`idx + 1` })
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('agent_run_steps').dropColumn('rev').execute()
}
