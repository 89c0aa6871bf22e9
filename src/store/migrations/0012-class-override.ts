import type { Kysely } from 'kysely'

/** An admin's raise of a skill's class above the one its definition declares (null: the declared class). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('skills').addColumn('class_override', 'text').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('skills').dropColumn('class_override').execute()
}
