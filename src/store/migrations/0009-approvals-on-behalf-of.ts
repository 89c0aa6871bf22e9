import type { Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('approvals').addColumn('on_behalf_of_id', 'text').execute()
  await db.schema.alterTable('approvals').addColumn('on_behalf_of_name', 'text').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('approvals').dropColumn('on_behalf_of_name').execute()
  await db.schema.alterTable('approvals').dropColumn('on_behalf_of_id').execute()
}
