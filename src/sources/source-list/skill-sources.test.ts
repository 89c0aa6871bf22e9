import { chmodSync, mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { databases, tempDir } from '../../test-support/databases.js'
import { admin, openTestPlane } from '../../test-support/fixtures.js'
import type { Skillplane } from '../../agents/index.js'

function pack(root: string, name: string): void {
  const dir = join(root, name)
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'run.sh'), '#!/bin/sh\necho \'{"ok":true}\'\n')
  chmodSync(join(dir, 'run.sh'), 0o755)
  writeFileSync(join(dir, 'skill.json'), JSON.stringify({ name, description: `The ${name} pack`, entry: 'run.sh', class: 'safe' }))
}

function instruction(root: string, name: string): void {
  mkdirSync(join(root, name), { recursive: true })
  writeFileSync(join(root, name, 'SKILL.md'), `---\nname: ${name}\ndescription: What ${name} is for. Use it when asked.\n---\n\nSteps.\n`)
}

const [sqlite] = databases.filter((d) => d.name === 'sqlite')

describe('every source as one list', () => {
  const planes: Skillplane[] = []
  afterEach(async () => {
    await Promise.all(planes.splice(0).map((plane) => plane.close()))
  })
  const open = async (config: Parameters<typeof openTestPlane>[1]) => {
    const plane = await openTestPlane(sqlite!, config)
    planes.push(plane)
    return plane
  }

  it('reports every kind in load order, each in the one shape', async () => {
    const packs = realpathSync(tempDir())
    const skills = realpathSync(tempDir())
    pack(packs, 'tally_pack')
    instruction(skills, 'tidy-notes')
    const plane = await open({ packDirs: [packs], skillDirs: [skills] })
    await plane.sources.edges.enroll({ name: 'web-1' }, admin)
    const report = plane.sources.report()
    expect(Object.keys(report)).toEqual(['code', 'built-in', 'pack', 'agent-skill', 'http', 'mcp', 'edge'])
    for (const source of Object.values(report)) expect(Object.keys(source)).toEqual(['skills', 'entries', 'findings'])
    // Code skills by the file that defines them, built-ins by the module that adds them.
    expect(report.code.entries).toEqual([expect.objectContaining({ name: 'src/test-support/fixtures.ts', state: 'loaded', reason: null })])
    expect(report.code.skills).toContain('echo')
    expect(report['built-in'].entries.map((e) => e.name)).toEqual(['built-in (discovery)', 'built-in (memory and learnings)'])
    expect(report.pack).toEqual({
      skills: ['tally_pack'],
      entries: [{ name: packs, state: 'loaded', reason: null, skills: ['tally_pack'], problems: [], details: {} }],
      findings: [],
    })
    expect(report['agent-skill'].entries).toEqual([{ name: skills, state: 'loaded', reason: null, skills: ['tidy-notes'], problems: [], details: {} }])
    expect(report.http).toEqual({ skills: [], entries: [], findings: [] })
    expect(report.mcp).toEqual({ skills: [], entries: [], findings: [] })
    expect(report.edge.entries).toEqual([expect.objectContaining({ name: 'web-1', state: 'offline', skills: [], problems: [] })])
  })

  it('reloads every kind: the skills that came and went, and a pack that may not take an instruction skill’s name', async () => {
    const packs = realpathSync(tempDir())
    const skills = realpathSync(tempDir())
    pack(packs, 'tally_pack')
    instruction(skills, 'digest')
    const plane = await open({ packDirs: [packs], skillDirs: [skills] })
    rmSync(join(packs, 'tally_pack'), { recursive: true })
    pack(packs, 'count_pack')
    instruction(skills, 'sort-notes')
    // Taken by an instruction skill: skipped with a finding, never registered.
    pack(packs, 'digest')
    const reloaded = await plane.sources.reload()
    expect(reloaded.added.sort()).toEqual(['count_pack', 'sort-notes'])
    expect(reloaded.removed).toEqual(['tally_pack'])
    expect(reloaded.sources.pack.skills).toEqual(['count_pack'])
    expect(reloaded.sources.pack.findings).toEqual([expect.objectContaining({ message: expect.stringContaining('instruction skill "digest"') })])
    expect(await plane.invoke('count_pack', {}, { caller: admin })).toMatchObject({ ok: true })
    expect(await plane.invoke('tally_pack', {}, { caller: admin })).toMatchObject({ ok: false, error: { code: 'not_found' } })
  })
})
