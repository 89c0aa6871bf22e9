import type { Kysely } from 'kysely'

/**
 * Who may see a skill (JSON `{ visibility, agents | users }`; null: everyone) and the risk findings
 * its install or upload found (a JSON array; null: none recorded), on the catalog row, so other
 * managers read them with the rest of the row.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('skills').addColumn('sharing', 'text').execute()
  await db.schema.alterTable('skills').addColumn('risks', 'text').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('skills').dropColumn('risks').execute()
  await db.schema.alterTable('skills').dropColumn('sharing').execute()
}
