import { describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { databases, tempDir } from '../test-support/databases.js'
import { openDatabase, redactUrl } from './open-database.js'
import { StoreError } from './store-error.js'

describe('opening the database', () => {
  it.each(databases)('migrates once and reopens without migrating again ($name)', async (database) => {
    const location = await database.create()
    const first = await openDatabase(location)
    await first.close()
    const second = await openDatabase(location)
    const tables = ['skills', 'agents', 'bindings', 'api_keys', 'audit_calls', 'managers'] as const
    for (const table of tables) await second.db.selectFrom(table).selectAll().execute()
    await second.close()
  })

  it('reports an unreachable PostgreSQL clearly, without the password', async () => {
    const error = await openDatabase({ dataDir: tempDir(), databaseUrl: 'postgres://app:s3cret@127.0.0.1:1/skillplane' }).catch((e) => e)
    expect(error).toBeInstanceOf(StoreError)
    expect(error.message).toMatch(/^cannot connect to the database at postgres:\/\/app:\*\*\*@127\.0\.0\.1:1\/skillplane: .*ECONNREFUSED/)
    expect(error.message).not.toContain('s3cret')
  })

  it('refuses a URL that is not PostgreSQL', async () => {
    await expect(openDatabase({ dataDir: tempDir(), databaseUrl: 'mysql://x@y/z' })).rejects.toThrow('unsupported database URL mysql://x@y/z')
  })

  it('reports a data dir that cannot hold the database', async () => {
    const file = join(tempDir(), 'not-a-dir')
    writeFileSync(file, 'x')
    await expect(openDatabase({ dataDir: file })).rejects.toThrow(/^cannot open the SQLite database in .*not-a-dir/)
  })

  it('keeps only the shape of an unparseable URL', () => {
    expect(redactUrl('not a url')).toBe('<unparseable database URL>')
  })
})
