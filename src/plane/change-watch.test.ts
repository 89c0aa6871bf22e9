import { afterEach, describe, expect, it } from 'vitest'
import { databases, waitFor } from '../test-support/databases.js'
import { admin, openTestPlane, testAgents } from '../test-support/fixtures.js'
import { listSkills } from '../inventory/index.js'
import { AgentRepository, CatalogRepository, ChangeVersionRepository, openDatabase } from '../store/index.js'
import type { Skillplane } from '../agents/index.js'

const open: Skillplane[] = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((plane) => plane.close()))
})

const helperBoundTo = (skills: string[]) => [{ ...testAgents![0]!, skills }, testAgents![1]!]
const agentsOf = (plane: Skillplane, key: string) => listSkills(plane.skills, admin).find((s) => s.key === key)!.agents

describe.each(databases)('changes made by another manager ($name)', (database) => {
  it('arrive within a heartbeat: bindings (bind and unbind) and catalog edits', async () => {
    const location = await database.create()
    const a = await openTestPlane(database, { agents: helperBoundTo(['explode']) }, location)
    open.push(a)
    expect(agentsOf(a, 'explode')).toEqual(['helper'])
    expect(agentsOf(a, 'hang')).toEqual([])

    // The other manager declares Helper with hang instead of explode, and retitles echo.
    const b = await openTestPlane(database, { agents: helperBoundTo(['hang']) }, location)
    open.push(b)
    expect(agentsOf(b, 'explode')).toEqual([])
    await b.skills.edit('echo', { title: 'Echo, retitled elsewhere' }, new Date().toISOString())

    await waitFor(() => agentsOf(a, 'hang').includes('helper') && a.skills.row('echo')?.title_override === 'Echo, retitled elsewhere', 12_000)
    expect(agentsOf(a, 'explode')).toEqual([])
    expect(a.skills.agentsBoundTo('hang')).toEqual(['helper'])
    const forHelper = listSkills(a.skills, admin, { agentId: 'helper' }).map((s) => s.key)
    expect(forHelper).toContain('hang')
    expect(forHelper).not.toContain('explode')
  }, 20_000)

  it('arrive as the rows another writer deleted, edited and added, removed binding and new agent included', async () => {
    const location = await database.create()
    const a = await openTestPlane(database, { agents: helperBoundTo(['explode']) }, location)
    open.push(a)
    expect(agentsOf(a, 'explode')).toEqual(['helper'])
    const other = await openDatabase(location)
    try {
      const now = new Date().toISOString()
      const skills = new CatalogRepository(other.db)
      const agents = new AgentRepository(other.db)
      const echo = (await skills.get('echo'))!
      await skills.delete('explode')
      await skills.update('echo', { title_override: 'Echo, edited elsewhere', updated_at: now })
      await skills.insert({ ...echo, key: 'added_elsewhere', title_override: null, created_at: now, updated_at: now })
      await agents.upsert({
        id: 'night-shift',
        name: 'Night Shift',
        aliases: '["nights"]',
        description: 'Added elsewhere',
        declared: 0,
        created_at: now,
        updated_at: now,
      })
      await agents.bind('night-shift', 'added_elsewhere', now)
      // Deleted and added again between two heartbeats: the row written last is what stays.
      await skills.delete('hang')
      await skills.insert({ ...echo, key: 'hang', code_title: 'Hang, again', created_at: now, updated_at: now })

      await waitFor(() => a.skills.row('added_elsewhere') !== undefined && a.skills.row('explode') === undefined, 12_000)
      expect(a.skills.row('echo')!.title_override).toBe('Echo, edited elsewhere')
      expect(a.skills.row('hang')!.code_title).toBe('Hang, again')
      expect(a.skills.agentsBoundTo('explode')).toEqual([])
      expect(a.agents.boundSkills('helper')).not.toContain('explode')
      expect(a.skills.agentsBoundTo('added_elsewhere')).toEqual(['night-shift'])
      expect(a.agents.resolve('Nights')).toBe('night-shift')
      expect(a.agents.list().map((agent) => agent.name)).toEqual(['Helper', 'Night Shift', 'Other'])
      // What was not touched is as it was.
      expect(a.skills.agentsBoundTo('echo')).toEqual(['helper'])
      expect(a.skills.row('write_thing')!.present).toBe(1)
    } finally {
      await other.close()
    }
  }, 20_000)

  it('bump the version of exactly the tables written, in the writing transaction', async () => {
    const location = await database.create()
    const plane = await openTestPlane(database, {}, location)
    open.push(plane)
    const opened = await openDatabase(location)
    try {
      const versions = new ChangeVersionRepository(opened.db)
      const before = await versions.read()
      expect([...before.keys()].sort()).toEqual(['agents', 'bindings', 'policies', 'skills'])
      await plane.skills.edit('echo', { title: 'Echo again' }, new Date().toISOString())
      const after = await versions.read()
      expect(after.get('skills')).toBeGreaterThan(before.get('skills')!)
      for (const table of ['agents', 'bindings', 'policies']) expect(after.get(table)).toBe(before.get(table))
      // A rolled-back write leaves the version where it was.
      await opened.db
        .transaction()
        .execute(async (trx) => {
          await trx.deleteFrom('bindings').execute()
          throw new Error('roll back')
        })
        .catch(() => {})
      expect((await versions.read()).get('bindings')).toBe(before.get('bindings'))
    } finally {
      await opened.close()
    }
  })

  it.runIf(database.name === 'postgres')(
    'holds every version row while a sync runs, so two syncs writing tables in other orders queue instead of deadlocking',
    async () => {
      const location = await database.create()
      const plane = await openTestPlane(database, {}, location)
      open.push(plane)
      const first = await openDatabase(location)
      const second = await openDatabase(location)
      try {
        let release!: () => void
        const held = new Promise<void>((resolve) => (release = resolve))
        let locked!: () => void
        const taken = new Promise<void>((resolve) => (locked = resolve))
        const holder = first.db.transaction().execute(async (trx) => {
          await new ChangeVersionRepository(trx).lockAll()
          locked()
          await held
        })
        await taken
        // Another transaction can't take any of them (here: the one a bindings write would lock) until the first ends.
        await expect(
          second.db
            .transaction()
            .execute((trx) => trx.selectFrom('change_versions').select('name').where('name', '=', 'bindings').forUpdate().noWait().execute()),
        ).rejects.toThrow(/could not obtain lock/)
        release()
        await holder
        await expect(second.db.transaction().execute((trx) => new ChangeVersionRepository(trx).lockAll())).resolves.toBeUndefined()
      } finally {
        await first.close()
        await second.close()
      }
    },
  )
})
