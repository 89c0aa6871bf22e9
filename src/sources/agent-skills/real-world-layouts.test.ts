import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { databases, tree } from '../../test-support/databases.js'
import { agentCaller, openTestPlane } from '../../test-support/fixtures.js'
import type { Skillplane } from '../../agents/index.js'
import { validateSkills } from './validate-skills.js'
import { loadInstructionSkills } from './load-instruction-skills.js'

// Layouts and texts found in published SKILL.md folders that skillplane once mishandled.
const MAIN = join(import.meta.dirname, '../../../dist/surfaces/cli/main.js')
const skill = (name: string, body = 'Body\n', extra = '') => `---\nname: ${name}\ndescription: The ${name} skill\n${extra}---\n${body}`
const DEEP = 'a/b/c/d/e/f/g'
const [sqlite] = databases

describe('skill folders as published', () => {
  const planes: Skillplane[] = []
  afterEach(async () => {
    await Promise.all(planes.splice(0).map((p) => p.close()))
  })

  it('loads skills nested in a skill folder, and never serves a nested template raw through its parent', async () => {
    const root = tree({
      'suite/SKILL.md': skill('suite', 'See [the variant](variants/inner/SKILL.md).\n'),
      'suite/variants/inner/SKILL.md': skill('inner'),
      'suite/variants/inner/references/x.md': 'x\n',
      'suite/variants/personal/SKILL.md.template': skill('personal', 'Hello {{user.name}}\n'),
    })
    expect(loadInstructionSkills([root])).toEqual({
      skills: [expect.objectContaining({ name: 'suite' }), expect.objectContaining({ name: 'inner' }), expect.objectContaining({ name: 'personal' })],
      findings: [],
    })
    // A root that is itself a skill is searched too.
    expect(loadInstructionSkills([join(root, 'suite')]).skills.map((s) => s.name)).toEqual(['suite', 'inner', 'personal'])
    expect(validateSkills([root])).toMatchObject({ skills: 3, errors: 0, warnings: 0 })

    const plane = await openTestPlane(sqlite!, { skillDirs: [{ path: root, agents: ['Helper'] }] })
    planes.push(plane)
    const helper = agentCaller('helper')
    expect(await plane.invoke('activate_skill', { name: 'inner' }, { caller: helper })).toMatchObject({
      ok: true,
      data: { content: expect.stringContaining('<file>references/x.md</file>') },
    })
    const raw = await plane.invoke('read_skill_resource', { skill: 'suite', path: 'variants/personal/SKILL.md.template' }, { caller: helper })
    expect(raw).toMatchObject({ ok: false, error: { code: 'denied', message: 'the raw SKILL.md.template is not served: activate the skill instead' } })
    const suite = await plane.invoke('activate_skill', { name: 'suite' }, { caller: helper })
    expect(suite).toMatchObject({ ok: true, data: { content: expect.stringContaining('<file>variants/inner/SKILL.md</file>') } })
    expect(JSON.stringify(suite)).not.toContain('SKILL.md.template')
    const exported = [...plane.skills.export(helper, 'helper').files.keys()]
    expect(exported).toContain('personal/SKILL.md')
    expect(exported.filter((path) => path.endsWith('SKILL.md.template'))).toEqual([])
  })

  it('reports a skill past the depth limit: a warning when loading, an error that fails validate', () => {
    const root = tree({
      'ok/SKILL.md': skill('ok'),
      // Deep folders holding no skill are no finding.
      'ok/assets/1/2/3/4/5/6/7/8/deep.txt': 'x',
      [`${DEEP}/too-deep/SKILL.md`]: skill('too-deep'),
    })
    const file = join(root, DEEP, 'too-deep/SKILL.md')
    const message = `8 levels below ${root}, deeper than the limit of 6; skipped`
    const loaded = loadInstructionSkills([root])
    expect(loaded.skills.map((s) => s.name)).toEqual(['ok'])
    expect(loaded.findings).toEqual([{ file, line: 1, severity: 'warning', message }])
    expect(validateSkills([root], { maxDepth: 6, maxSkills: 100 }).findings).toEqual([{ file, line: 1, severity: 'error', message }])
    const run = spawnSync(process.execPath, [MAIN, 'skills', 'validate', root], { encoding: 'utf8' })
    expect(run.status).toBe(1)
    expect(run.stdout.trim().split('\n')).toEqual([`${file}:1: error: ${message}`, '1 skill checked: 1 error, 0 warnings'])
  })

  it('fails validate when the skill cap leaves skills out, and only then', () => {
    const root = tree({ 'one/SKILL.md': skill('one'), 'two/SKILL.md': skill('two') })
    const capped = validateSkills([root], { maxDepth: 6, maxSkills: 1 })
    expect(capped).toMatchObject({ skills: 1, errors: 1, findings: [{ file: root, severity: 'error', message: 'stopped at 1 skills' }] })
    expect(loadInstructionSkills([root], { maxDepth: 6, maxSkills: 1 }).findings).toEqual([
      expect.objectContaining({ severity: 'warning', message: 'stopped at 1 skills' }),
    ])
    expect(validateSkills([root], { maxDepth: 6, maxSkills: 2 })).toMatchObject({ skills: 2, errors: 0, findings: [] })
  })

  it('counts lengths in characters (code points), not UTF-16 units', () => {
    const emoji = '🚀'
    const root = tree({
      // 1,020 characters, 1,040 UTF-16 units.
      'fits/SKILL.md': skill('fits', 'Body\n', '').replace('The fits skill', `${emoji.repeat(20)}${'d'.repeat(1000)}`),
      'over/SKILL.md': skill('over', 'Body\n', `compatibility: ${emoji.repeat(501)}\n`).replace('The over skill', emoji.repeat(1025)),
      'compat/SKILL.md': skill('compat', 'Body\n', `compatibility: ${emoji.repeat(500)}\n`),
      [`${emoji.repeat(40)}/SKILL.md`]: skill(emoji.repeat(40)),
    })
    const messages = validateSkills([root]).findings.map((f) => `${f.file.slice(root.length + 1)}: ${f.message}`)
    expect(messages).toEqual([
      // 40 characters: within 1-64, so the name's other rule is the one it breaks.
      `${emoji.repeat(40)}/SKILL.md: name "${emoji.repeat(40)}" must use only a-z, 0-9 and hyphens, without a leading, trailing or doubled hyphen`,
      `over/SKILL.md: description must be at most 1024 characters, got 1025`,
      `over/SKILL.md: compatibility must be at most 500 characters, got 501`,
    ])
  })

  it("resolves {baseDir}/ links in the skill's own folder", () => {
    const root = tree({
      'runner/SKILL.md': skill(
        'runner',
        'Run `python3` on [the script]({baseDir}/scripts/run.py), see ![chart]({baseDir}/assets/chart%20one.png).\n\nAlso [gone]({baseDir}/references/nope.md) and [up]({baseDir}/../other/x.md).\n',
      ),
      'runner/scripts/run.py': 'print(1)\n',
      'runner/assets/chart one.png': 'png',
      'other/x.md': 'x',
      'other/SKILL.md': skill('other'),
    })
    const messages = validateSkills([root]).findings.map((f) => `${f.file.slice(root.length + 1)}:${f.line}: ${f.severity}: ${f.message}`)
    expect(messages).toEqual([
      'runner/SKILL.md:7: warning: link to "{baseDir}/references/nope.md", which does not exist',
      'runner/SKILL.md:7: warning: link to "{baseDir}/../other/x.md" leads outside the skill\'s folder (../other/x.md)',
    ])
  })
})
