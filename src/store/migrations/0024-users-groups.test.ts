import { mkdirSync, readdirSync, realpathSync } from 'node:fs'
import { join } from 'node:path'
import SQLite from 'better-sqlite3'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { Kysely, Migrator, PostgresDialect, SqliteDialect, type Migration } from 'kysely'
import { databases } from '../../test-support/databases.js'
import { openTestPlane } from '../../test-support/fixtures.js'
import { hashKey } from '../../accounts/index.js'

/** Every migration before this one, by the names the store runs them under. */
async function migrationsBefore(): Promise<Record<string, Migration>> {
  const files = readdirSync(import.meta.dirname).filter((f) => /^\d{4}-.*\.ts$/.test(f) && !f.endsWith('.test.ts') && f < '0024')
  const entries = await Promise.all(files.map(async (f) => [f.slice(0, -3).replaceAll('-', '_'), (await import(`./${f}`)) as Migration] as const))
  return Object.fromEntries(entries)
}

describe.each(databases)('migration 0024 (users and groups) on $name', (database) => {
  it('gives each existing key a user of its name, and turns overrides and sharing that named a key by id to its user', async () => {
    const location = await database.create()
    // A store as the release before users left it, keys and all.
    const old = await storeBefore(location)
    const key = (id: string, name: string, role: string, agentId: string | null = null) => ({
      id,
      name,
      role,
      agent_id: agentId,
      key_hash: hashKey(`sp_${id}`),
      created_at: `2026-01-0${id.length % 9}T00:00:00.000Z`,
      revoked_at: null,
    })
    await old
      .insertInto('api_keys')
      .values([key('k1', 'alice', 'admin'), key('k22', 'alice', 'viewer'), key('k333', 'ci', 'operator'), key('k4444', 'bot', 'agent', 'helper')])
      .execute()
    await old
      .insertInto('policies')
      .values({
        id: 'p1',
        skill_key: 'write_thing',
        level: 'user',
        subject: 'k333',
        decision: 'DENY',
        created_by: 'root',
        created_at: '2026-01-01T00:00:00.000Z',
      })
      .execute()
    const at = '2026-01-01T00:00:00.000Z'
    await old
      .insertInto('skills')
      .values({
        key: 'echo',
        source: 'code',
        origin: 'test',
        class: 'safe',
        scope: 'manager',
        category: 'general',
        code_title: 'Echo',
        code_description: 'Return the message',
        code_tags: '[]',
        enabled: 1,
        present: 1,
        created_at: at,
        updated_at: at,
        sharing: JSON.stringify({ visibility: 'users', users: ['k1', 'alice', 'nobody'] }),
      })
      .execute()
    await old.destroy()

    const plane = await openTestPlane(database, {}, location)
    try {
      const users = await plane.people.users.list()
      expect(users.map((u) => [u.name, u.role, u.disabledAt])).toEqual([
        ['alice', null, null],
        ['bot', null, null],
        ['ci', null, null],
      ])
      const keys = await plane.people.keys.list()
      const userOf = (name: string) => users.find((u) => u.name === name)!.id
      expect(keys.map((k) => [k.id, k.role, k.user.id])).toEqual([
        ['k1', 'admin', userOf('alice')],
        ['k22', 'viewer', userOf('alice')],
        ['k333', 'operator', userOf('ci')],
        ['k4444', 'agent', userOf('bot')],
      ])
      // The keys authenticate as before, now as their users; each keeps its own role.
      expect(await plane.people.keys.authenticate('sp_k22')).toEqual({
        kind: 'user',
        id: userOf('alice'),
        name: 'alice',
        role: 'viewer',
        displayName: 'alice',
        keyId: 'k22',
        auth: 'key',
      })
      expect(await plane.people.keys.authenticate('sp_k4444')).toMatchObject({ kind: 'agent', id: 'k4444', agentId: 'helper', userId: userOf('bot') })
      expect(plane.policies.rows().map((p) => [p.id, p.subject])).toEqual([['p1', 'ci']])
      expect(plane.skills.sharing('echo')).toEqual({ visibility: 'users', users: ['alice', 'nobody'] })
      expect(await plane.invoke('write_thing', { value: 'x' }, { caller: (await plane.people.keys.authenticate('sp_k333'))! })).toMatchObject({
        ok: false,
        error: { code: 'denied' },
      })
    } finally {
      await plane.close()
    }
  })
})

/** A store migrated up to, not including, 0024, opened without the store's own code. */
async function storeBefore(location: { dataDir: string; databaseUrl?: string }): Promise<Kysely<any>> {
  let db: Kysely<any>
  if (location.databaseUrl) db = new Kysely({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: location.databaseUrl }) }) })
  else {
    mkdirSync(location.dataDir, { recursive: true })
    db = new Kysely({ dialect: new SqliteDialect({ database: new SQLite(join(realpathSync(location.dataDir), 'skillplane.db')) }) })
  }
  const migrator = new Migrator({
    db,
    provider: { getMigrations: migrationsBefore },
    migrationTableName: 'skillplane_migrations',
    migrationLockTableName: 'skillplane_migrations_lock',
    allowUnorderedMigrations: true,
  })
  const { error } = await migrator.migrateToLatest()
  if (error) throw error
  return db
}
