import { describe, expect, it } from 'vitest'
import { databases } from '../../test-support/databases.js'
import { admin, silentLogger } from '../../test-support/fixtures.js'
import { createSkillplane } from '../../agents/index.js'
import { runCli } from '../../test-support/run-cli.js'

const cli = (location: { dataDir: string; databaseUrl?: string }, args: string[]) => runCli(location, args)

describe.each(databases)('skillplane learnings on $name', (database) => {
  it('lists learnings, verifies and disproves one, audited, and names what is wrong', async () => {
    const location = await database.create()
    // As `serve` would have: the catalog knows the agent.
    const plane = await createSkillplane({ config: { agents: [{ name: 'Helper', aliases: ['helper'] }] }, ...location, logger: silentLogger(), sync: true })
    const { id } = await plane.values.learnings.record(
      { category: 'discovery', title: 'Backups run at 03:00', content: 'Avoid deploys then.', tags: ['ops'], importance: 0.4 },
      { skill: 'echo', agentId: 'helper', callId: null, caller: admin },
    )
    await plane.close()

    const table = cli(location, ['learnings', 'list'])
    expect(table.code).toBe(0)
    expect(table.stdout).toMatch(/ID\s+CATEGORY\s+IMPORTANCE\s+STATUS\s+SKILL\s+AGENT\s+TITLE/)
    expect(table.stdout).toMatch(new RegExp(`${id}\\s+discovery\\s+0\\.40\\s+active\\s+echo\\s+helper\\s+Backups run at 03:00`))

    const verified = cli(location, ['learnings', 'verify', id])
    expect(verified).toMatchObject({ code: 0, stdout: `verified learning ${id} "Backups run at 03:00" (importance 0.55)\n` })
    const disproved = cli(location, ['learnings', 'disprove', id, '--json'])
    expect(disproved.code).toBe(0)
    expect(JSON.parse(disproved.stdout)).toMatchObject({ id, importance: 0.05, verification: 'disproved' })
    const listed = JSON.parse(cli(location, ['learnings', 'list', '--agent', 'Helper', '--json']).stdout)
    expect(listed).toEqual([expect.objectContaining({ id, verification: 'disproved', status: 'active' })])
    expect(cli(location, ['learnings', 'list', '--status', 'deprecated']).stdout).toBe('no learnings\n')

    const unknown = cli(location, ['learnings', 'verify', 'nope'])
    expect(unknown.code).not.toBe(0)
    expect(unknown.stderr).toContain('no learning nope')
    const badStatus = cli(location, ['learnings', 'list', '--status', 'gone'])
    expect(badStatus.code).not.toBe(0)
    expect(badStatus.stderr).toContain('status must be active or deprecated, not "gone"')
    expect(cli(location, ['learnings', 'list', '--limit', 'many']).stderr).toContain('limit must be from 1 to 1000')

    const reopened = await createSkillplane({ config: {}, ...location, logger: silentLogger() })
    try {
      const events = (await reopened.audit.events.list({ subject: `learning:${id}`, limit: 10 })).items
      expect(events.map((e) => e.kind).sort()).toEqual(['learning.disprove', 'learning.verify'])
    } finally {
      await reopened.close()
    }
  })
})
