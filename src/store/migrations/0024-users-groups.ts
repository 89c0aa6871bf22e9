import { sql, type Kysely } from 'kysely'
import { ulid } from 'ulid'

/**
 * Users and groups, the identity behind every key: each key belongs to a user (existing keys to a
 * user of their name), roles are granted to users and groups, and calls, requests and decisions
 * record the user and how they authenticated. A key's role becomes optional (a key without one
 * follows its user), which both dialects only allow by rebuilding api_keys.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('display_name', 'text')
    .addColumn('role', 'text')
    // An identity provider's user (OIDC just-in-time): its issuer and subject claim.
    .addColumn('issuer', 'text')
    .addColumn('subject', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('disabled_at', 'text')
    .addUniqueConstraint('users_issuer_subject_unique', ['issuer', 'subject'])
    .execute()
  await db.schema
    .createTable('groups')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('role', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema
    .createTable('group_members')
    .addColumn('group_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('group_members_pk', ['group_id', 'user_id'])
    .execute()
  await db.schema.createIndex('group_members_user_idx').on('group_members').column('user_id').execute()

  // One user per distinct key name, as old as its oldest key.
  const names = await db
    .selectFrom('api_keys')
    .select(['name', (eb) => eb.fn.min('created_at').as('created_at')])
    .groupBy('name')
    .execute()
  for (const { name, created_at } of names as Array<{ name: string; created_at: string }>) {
    await db.insertInto('users').values({ id: ulid(), name, created_at }).execute()
  }

  await db.schema
    .createTable('api_keys_next')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('role', 'text')
    .addColumn('agent_id', 'text')
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute()
  await sql`insert into api_keys_next (id, name, role, agent_id, user_id, key_hash, created_at, revoked_at)
    select k.id, k.name, k.role, k.agent_id, u.id, k.key_hash, k.created_at, k.revoked_at
    from api_keys k join users u on u.name = k.name`.execute(db)
  await db.schema.dropTable('api_keys').execute()
  await db.schema.alterTable('api_keys_next').renameTo('api_keys').execute()
  await db.schema.createIndex('api_keys_user_idx').on('api_keys').column('user_id').execute()

  // Overrides and sharing that named a key by id now name its user (the key's name).
  const keys = (await db.selectFrom('api_keys').select(['id', 'name']).execute()) as Array<{ id: string; name: string }>
  const nameOf = new Map(keys.map((k) => [k.id, k.name]))
  for (const key of keys) {
    await db.updateTable('policies').set({ subject: key.name }).where('level', '=', 'user').where('subject', '=', key.id).execute()
  }
  const shared = (await db.selectFrom('skills').select(['key', 'sharing']).where('sharing', 'like', '%"users"%').execute()) as Array<{
    key: string
    sharing: string
  }>
  for (const row of shared) {
    const sharing = JSON.parse(row.sharing) as { users?: unknown }
    if (!Array.isArray(sharing.users) || !sharing.users.some((u) => nameOf.has(u))) continue
    const users = [...new Set(sharing.users.map((u) => nameOf.get(u) ?? u))]
    await db
      .updateTable('skills')
      .set({ sharing: JSON.stringify({ ...sharing, users }) })
      .where('key', '=', row.key)
      .execute()
  }

  // Who called, asked and decided: the user (for an agent key, the user it belongs to), the name to show, and how they authenticated.
  for (const column of ['caller_user_id', 'caller_display_name', 'caller_auth', 'caller_key_id']) {
    await db.schema.alterTable('audit_calls').addColumn(column, 'text').execute()
    await db.schema.alterTable('approvals').addColumn(column, 'text').execute()
  }
  for (const column of ['approver_display_name', 'approver_auth', 'approver_key_id']) {
    await db.schema.alterTable('approval_decisions').addColumn(column, 'text').execute()
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ['approver_display_name', 'approver_auth', 'approver_key_id']) {
    await db.schema.alterTable('approval_decisions').dropColumn(column).execute()
  }
  for (const column of ['caller_user_id', 'caller_display_name', 'caller_auth', 'caller_key_id']) {
    await db.schema.alterTable('approvals').dropColumn(column).execute()
    await db.schema.alterTable('audit_calls').dropColumn(column).execute()
  }
  await db.schema.dropIndex('api_keys_user_idx').execute()
  await db.schema.alterTable('api_keys').dropColumn('user_id').execute()
  await db.schema.dropTable('group_members').execute()
  await db.schema.dropTable('groups').execute()
  await db.schema.dropTable('users').execute()
}
