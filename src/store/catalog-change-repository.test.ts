import { afterEach, describe, expect, it } from 'vitest'
import { databases } from '../test-support/databases.js'
import { openDatabase, type OpenedDatabase } from './open-database.js'
import { CatalogRepository, type CatalogRow } from './catalog-repository.js'
import { AgentRepository } from './agent-repository.js'
import { CatalogChangeRepository } from './catalog-change-repository.js'

const now = '2025-01-01T00:00:00.000Z'
const row = (key: string): CatalogRow => ({
  key,
  source: 'code',
  origin: 'test',
  class: 'safe',
  scope: 'manager',
  category: 'test',
  code_title: key,
  code_description: `The ${key} skill`,
  code_tags: '[]',
  title_override: null,
  description_override: null,
  system_prompt: null,
  tags_override: null,
  class_override: null,
  sharing: null,
  risks: null,
  enabled: 1,
  present: 1,
  created_at: now,
  updated_at: now,
})
const keys = (rows: Array<{ key: string }>) => rows.map((r) => r.key).sort()

const opened: OpenedDatabase[] = []
afterEach(async () => {
  await Promise.all(opened.splice(0).map((o) => o.close()))
})

describe.each(databases)('reading the catalog by version ($name)', (database) => {
  it('returns every row first, then only the rows written and deleted since the versions it returned', async () => {
    const location = await database.create()
    const store = await openDatabase(location)
    opened.push(store)
    const skills = new CatalogRepository(store.db)
    const agents = new AgentRepository(store.db)
    const changes = new CatalogChangeRepository(store.db)
    for (const key of ['a', 'b', 'c', 'd']) await skills.insert(row(key))
    await agents.upsert({ id: 'helper', name: 'Helper', aliases: '[]', description: '', declared: 1, created_at: now, updated_at: now })
    for (const key of ['a', 'b']) await agents.bind('helper', key, now)

    const first = await changes.read()
    expect(first.whole).toBe(true)
    expect(keys(first.skills)).toEqual(['a', 'b', 'c', 'd'])
    expect(first.bindings.map((b) => b.skill_key).sort()).toEqual(['a', 'b'])

    await skills.update('b', { title_override: 'B', updated_at: now })
    await skills.delete('a')
    await skills.insert(row('e'))
    await agents.unbind('helper', 'b')
    await agents.bind('helper', 'e', now)
    const second = await changes.read(first.versions)
    expect(second.whole).toBe(false)
    expect(keys(second.skills)).toEqual(['b', 'e'])
    expect(second.agents).toEqual([])
    expect(second.bindings.map((b) => b.skill_key)).toEqual(['e'])
    expect(second.deleted.skills).toEqual(['a'])
    expect(second.deleted.bindings).toEqual(
      expect.arrayContaining([
        { agent_id: 'helper', skill_key: 'a' },
        { agent_id: 'helper', skill_key: 'b' },
      ]),
    )
    expect(second.deleted.bindings).toHaveLength(2)

    // Nothing written since: nothing read, and an insert that met a conflict wrote nothing.
    await skills.insert(row('c'))
    const third = await changes.read(second.versions)
    expect([third.skills, third.agents, third.bindings, third.deleted.skills, third.deleted.bindings]).toEqual([[], [], [], [], []])
  })

  it.runIf(database.name === 'postgres')('misses no write of a transaction that took its version before another one committed a later version', async () => {
    const location = await database.create()
    const [reader, first, second] = await Promise.all([openDatabase(location), openDatabase(location), openDatabase(location)])
    opened.push(reader, first, second)
    const changes = new CatalogChangeRepository(reader.db)
    const seen = await changes.read()

    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    let wrote!: () => void
    const written = new Promise<void>((resolve) => (wrote = resolve))
    // The first writer takes its version and holds its transaction open; the second writes after it.
    const slow = first.db.transaction().execute(async (trx) => {
      await new CatalogRepository(trx).insert(row('slow'))
      wrote()
      await held
    })
    await written
    const fast = new CatalogRepository(second.db).insert(row('fast'))
    // Neither is committed yet: a reader sees neither, and its versions stay below both.
    const between = await changes.read(seen.versions)
    expect(between.skills).toEqual([])
    release()
    await Promise.all([slow, fast])
    const after = await changes.read(between.versions)
    expect(keys(after.skills)).toEqual(['fast', 'slow'])
  })
})
