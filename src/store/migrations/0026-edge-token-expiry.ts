import type { Kysely } from 'kysely'

/** When an edge's token stops working (null: never), set at enrollment or rotation. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('edges').addColumn('token_expires_at', 'text').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('edges').dropColumn('token_expires_at').execute()
}
