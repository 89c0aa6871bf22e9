import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { databases } from '../test-support/databases.js'
import { silentLogger } from '../test-support/fixtures.js'
import { defineSkill } from '../skill/define-skill.js'
import type { SkillDefinition } from '../skill/skill-types.js'
import { createSkillplane, type Skillplane } from '../agents/index.js'
import type { SkillplaneConfig } from '../config/define-config.js'

const agents = [
  { name: 'Fleet Autonomy', aliases: ['fleet'] },
  { name: 'Notes Assistant', aliases: ['notes'] },
]
// discover_skills is bound to every agent; these tests are about the bindings the config makes.
const own = (keys: string[]) => keys.filter((k) => k !== 'discover_skills')
const skill = (key: string, extra: Partial<SkillDefinition> = {}) =>
  defineSkill({ key, description: `The ${key} skill`, class: 'safe', input: z.object({}), run: () => ({}), ...extra })

describe.each(databases)('sync on $name', (database) => {
  const open: Skillplane[] = []
  afterEach(async () => {
    await Promise.all(open.splice(0).map((p) => p.close()))
  })
  const plane = async (location: { dataDir: string; databaseUrl?: string }, config: SkillplaneConfig) => {
    const p = await createSkillplane({ config, ...location, logger: silentLogger() })
    open.push(p)
    return p
  }

  it('creates catalog rows, agents and bindings from code, and a second sync changes nothing', async () => {
    const location = await database.create()
    const p = await plane(location, {
      agents,
      skills: [skill('detect_orphans', { agents: ['Fleet Autonomy', 'notes'] }), skill('list_notes', { agents: ['Notes Assistant'] })],
    })
    const dry = await p.skills.sync({ dryRun: true })
    expect(dry.changes.map((c) => c.message)).toEqual([
      '+ agent Fleet Autonomy (fleet-autonomy)',
      '+ agent Notes Assistant (notes-assistant)',
      '+ skill detect_orphans (code, safe)',
      '+ skill discover_skills (code, safe)',
      '+ skill list_notes (code, safe)',
      '+ skill memory_delete (code, mutating)',
      '+ skill memory_get (code, safe)',
      '+ skill memory_set (code, mutating)',
      '+ skill recall_learnings (code, safe)',
      '+ binding Fleet Autonomy → detect_orphans',
      '+ binding Notes Assistant → detect_orphans',
      '+ binding Fleet Autonomy → discover_skills',
      '+ binding Notes Assistant → discover_skills',
      '+ binding Notes Assistant → list_notes',
    ])
    await p.skills.refresh()
    expect(p.agents.list()).toEqual([])
    expect(p.skills.row('detect_orphans')).toBeUndefined()

    const applied = await p.skills.sync()
    expect(applied.changes).toHaveLength(14)
    expect(own(p.agents.boundSkills('notes-assistant'))).toEqual(['detect_orphans', 'list_notes'])
    expect(p.agents.resolve('FLEET')).toBe('fleet-autonomy')
    expect((await p.skills.sync()).changes).toEqual([])
  })

  it('reports unknown agents and skips their bindings', async () => {
    const p = await plane(await database.create(), { agents, skills: [skill('a_skill', { agents: ['Ghost Agent', 'fleet'] })] })
    const report = await p.skills.sync()
    expect(report.warnings).toEqual([
      expect.objectContaining({ kind: 'unknown_agent', subject: 'a_skill', message: expect.stringContaining('unknown agent "Ghost Agent"') }),
    ])
    expect(own(p.agents.boundSkills('fleet-autonomy'))).toEqual(['a_skill'])
  })

  it('binds the skills an agent names by key, warns of keys no source offers, and drops a binding the agent no longer names', async () => {
    const location = await database.create()
    const named = [{ name: 'Fleet Autonomy', skills: ['their_skill', 'not_yet'] }]
    const p = await plane(location, { agents: named, skills: [skill('their_skill'), skill('other_skill')] })
    const report = await p.skills.sync()
    expect(report.changes.map((c) => c.message)).toContain('+ binding Fleet Autonomy → their_skill')
    expect(report.warnings).toEqual([
      expect.objectContaining({
        kind: 'unknown_skill',
        subject: 'not_yet',
        message: expect.stringContaining('names skill "not_yet", which no source offers now'),
      }),
    ])
    expect(own(p.agents.boundSkills('fleet-autonomy'))).toEqual(['their_skill'])
    await p.close()
    const again = await plane(location, { agents: [{ name: 'Fleet Autonomy', skills: ['other_skill'] }], skills: [skill('their_skill'), skill('other_skill')] })
    expect((await again.skills.sync()).changes.map((c) => c.message)).toEqual([
      '+ binding Fleet Autonomy → other_skill',
      '- binding Fleet Autonomy → their_skill (no longer declared in code or config)',
    ])
  })

  it('corrects drift: bindings no longer declared in code are removed, catalog overrides survive', async () => {
    const location = await database.create()
    const first = await plane(location, { agents, skills: [skill('one', { agents: ['fleet'] }), skill('two', { agents: ['fleet'] })] })
    await first.skills.sync()
    await first.skills.edit('one', { description: 'Edited by an operator', tags: ['edited'] }, first.now())
    await first.close()

    const second = await plane(location, {
      agents,
      skills: [skill('one', { description: 'New code description' }), skill('two', { agents: ['fleet'] })],
    })
    const report = await second.skills.sync()
    expect(report.changes.map((c) => c.message)).toEqual([
      '~ skill one: code description changed',
      '- binding Fleet Autonomy → one (no longer declared in code or config)',
    ])
    const row = second.skills.row('one')!
    expect(row.description_override).toBe('Edited by an operator')
    expect(row.code_description).toBe('New code description')
    expect(JSON.parse(row.tags_override!)).toEqual(['edited'])
    expect(own(second.agents.boundSkills('fleet-autonomy'))).toEqual(['two'])
  })

  it('reports catalog rows whose executor is gone and restores them when it returns', async () => {
    const location = await database.create()
    const first = await plane(location, { agents, skills: [skill('keep'), skill('gone')] })
    await first.skills.sync()
    await first.close()

    const second = await plane(location, { agents, skills: [skill('keep')] })
    const report = await second.skills.sync()
    expect(report.changes.map((c) => c.kind)).toEqual(['skill_orphaned'])
    expect(report.warnings).toEqual([expect.objectContaining({ kind: 'orphan_row', subject: 'gone' })])
    expect(second.skills.row('gone')!.present).toBe(0)
    await second.close()

    const third = await plane(location, { agents, skills: [skill('keep'), skill('gone', { agents: ['fleet'] })] })
    expect((await third.skills.sync()).changes.map((c) => c.message)).toEqual(['+ skill gone: executor is back', '+ binding Fleet Autonomy → gone'])
    await third.close()

    const fourth = await plane(location, { agents, skills: [skill('keep')] })
    const dry = await fourth.skills.sync({ prune: true, dryRun: true })
    expect(dry.changes.map((c) => c.message)).toEqual(['- skill gone: executor gone, row and bindings deleted'])
    expect(fourth.skills.row('gone')).toBeDefined()
    const pruned = await fourth.skills.sync({ prune: true })
    expect(pruned.warnings).toEqual([])
    expect(fourth.skills.row('gone')).toBeUndefined()
    expect(own(fourth.agents.boundSkills('fleet-autonomy'))).toEqual([])
    expect((await fourth.skills.sync()).changes).toEqual([])
  })

  it('marks agents removed from the config as undeclared and stops syncing their bindings', async () => {
    const location = await database.create()
    const first = await plane(location, { agents, skills: [skill('x', { agents: ['fleet'] })] })
    await first.skills.sync()
    await first.close()
    const second = await plane(location, { agents: [agents[1]!], skills: [skill('x')] })
    const report = await second.skills.sync()
    expect(report.changes.map((c) => c.kind)).toEqual(['agent_undeclared'])
    expect(second.agents.get('fleet-autonomy')).toMatchObject({ declared: false })
    expect(own(second.agents.boundSkills('fleet-autonomy'))).toEqual(['x'])
  })
})
