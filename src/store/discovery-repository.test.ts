import { afterEach, describe, expect, it } from 'vitest'
import { databases } from '../test-support/databases.js'
import { openDatabase, type OpenedDatabase } from './open-database.js'
import { DiscoveryRepository } from './discovery-repository.js'

const opened: OpenedDatabase[] = []
afterEach(async () => {
  await Promise.all(opened.splice(0).map((o) => o.close()))
})

describe.each(databases)('discovery examples ($name)', (database) => {
  it('stores a backlog larger than one statement may bind, once, and reads back only other managers’ rows', async () => {
    const store = await openDatabase(await database.create())
    opened.push(store)
    const repo = new DiscoveryRepository(store.db)
    // 20,000 rows of five columns: past SQLite's 32,766 and PostgreSQL's 65,535 parameters in one statement.
    const rows = Array.from({ length: 20_000 }, (_, i) => ({
      id: `e${String(i).padStart(5, '0')}`,
      skill_key: `skill_${i % 7}`,
      query: `request ${i}`,
      created_at: '2026-11-28T10:00:00.000Z',
      manager_id: i % 2 ? 'here' : 'there',
    }))
    await repo.addExamples(rows)
    await repo.addExamples(rows.slice(0, 10))
    const others = await repo.examplesSince('2026-11-28T00:00:00.000Z', 'here')
    expect(others).toHaveLength(10_000)
    expect(others.every((row) => row.manager_id === 'there')).toBe(true)
    expect(await repo.examplesSince('2026-11-28T00:00:00.000Z')).toHaveLength(20_000)
  })
})
