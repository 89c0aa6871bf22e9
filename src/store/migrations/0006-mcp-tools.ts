import type { Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('mcp_tools')
    .addColumn('server', 'text', (c) => c.primaryKey())
    .addColumn('tools', 'text', (c) => c.notNull())
    .addColumn('listed_at', 'text', (c) => c.notNull())
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('mcp_tools').execute()
}
