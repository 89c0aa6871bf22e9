import type { Kysely } from 'kysely'

/**
 * A run as a debugger reads it: each step's start, end and duration, and for the model calls
 * themselves (a step of kind `model`) the model, its token usage, cost, finish reason, time to its
 * first chunk and the request it was sent (stored as a change on the run's previous model request,
 * so a long run's requests grow with the run, not with its square). The run keeps the totals, so a
 * list of runs reads them without summing steps.
 */
const STEP_COLUMNS: Array<[string, 'text' | 'integer' | 'double precision']> = [
  ['started_at', 'text'],
  ['finished_at', 'text'],
  ['duration_ms', 'double precision'],
  ['step_number', 'integer'],
  ['model_provider', 'text'],
  ['model_id', 'text'],
  ['input_tokens', 'integer'],
  ['output_tokens', 'integer'],
  ['cached_input_tokens', 'integer'],
  ['cache_write_tokens', 'integer'],
  ['reasoning_tokens', 'integer'],
  ['cost_usd', 'double precision'],
  ['finish_reason', 'text'],
  ['first_chunk_ms', 'double precision'],
  ['request', 'text'],
]

const RUN_TOTALS: Array<[string, 'integer' | 'double precision']> = [
  ['input_tokens', 'integer'],
  ['output_tokens', 'integer'],
  ['cached_input_tokens', 'integer'],
  ['model_ms', 'double precision'],
  ['tool_ms', 'double precision'],
  ['approval_wait_ms', 'double precision'],
]

export async function up(db: Kysely<any>): Promise<void> {
  // One column a statement: SQLite adds no more.
  for (const [name, type] of STEP_COLUMNS) await db.schema.alterTable('agent_run_steps').addColumn(name, type).execute()
  for (const [name, type] of RUN_TOTALS) {
    await db.schema
      .alterTable('agent_runs')
      .addColumn(name, type, (c) => c.notNull().defaultTo(0))
      .execute()
  }
  // Null until a step has a cost (no pricing configured, or no usage reported).
  await db.schema.alterTable('agent_runs').addColumn('cost_usd', 'double precision').execute()
  // Set while the run waits for a person, so the wait is counted apart from the work when it resumes.
  await db.schema.alterTable('agent_runs').addColumn('paused_at', 'text').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [name] of STEP_COLUMNS) await db.schema.alterTable('agent_run_steps').dropColumn(name).execute()
  for (const name of [...RUN_TOTALS.map(([n]) => n), 'cost_usd', 'paused_at']) await db.schema.alterTable('agent_runs').dropColumn(name).execute()
}
