import { symlinkSync, writeFileSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { tree } from '../../test-support/databases.js'
import { validateSkills } from './validate-skills.js'
import { loadInstructionSkills } from './load-instruction-skills.js'

const MAIN = join(import.meta.dirname, '../../../dist/surfaces/cli/main.js')

const skill = (name: string, extra = '', body = '# Steps\n\nDo the thing.\n') => `---\nname: ${name}\ndescription: Does ${name} things\n${extra}---\n${body}`
const messages = (root: string) => validateSkills([root]).findings.map((f) => `${f.file.slice(root.length + 1)}:${f.line}: ${f.severity}: ${f.message}`)

describe('SKILL.md validation', () => {
  it('accepts a valid skill, with a BOM and CRLF line ends', () => {
    const root = tree({
      'good/SKILL.md': skill(
        'good',
        'license: MIT\nmetadata:\n  owner: ops\nallowed-tools: Bash(git:*) Read\ncompatibility: needs git\n',
        'See [refs](references/a.md).\n',
      ),
      'good/references/a.md': '# A\n',
      'crlf/SKILL.md': '\uFEFF---\r\nname: crlf\r\ndescription: Windows line ends\r\n---\r\nBody\r\n',
    })
    expect(validateSkills([root])).toMatchObject({ skills: 2, errors: 0, warnings: 0 })
  })

  it('reports broken front matter with the line', () => {
    const root = tree({
      'none/SKILL.md': '# no front matter\n',
      'open/SKILL.md': '---\nname: open\ndescription: never closed\n',
      'list/SKILL.md': '---\n- a\n- b\n---\n',
      'bad-yaml/SKILL.md': '---\nname: bad-yaml\ndescription: "unterminated\n---\n',
      'dash/SKILL.md': '---\nname: dash\ndescription: before --- after\n---\nbody\n',
    })
    expect(messages(root)).toEqual([
      'bad-yaml/SKILL.md:3: error: front matter is not valid YAML: Missing closing "quote',
      'list/SKILL.md:2: error: front matter must be a mapping of keys to values',
      "none/SKILL.md:1: error: missing front matter: SKILL.md must start with a '---' line",
      "open/SKILL.md:1: error: unclosed front matter: no closing '---' line",
    ])
  })

  it.each([
    ['Upper', 'name "Upper" must use only a-z, 0-9 and hyphens'],
    ['under_score', 'name "under_score" must use only a-z, 0-9 and hyphens'],
    ['-leading', 'name "-leading" must use only'],
    ['double--hyphen', 'name "double--hyphen" must use only'],
    ['trailing-', 'name "trailing-" must use only'],
    ['x'.repeat(65), 'name must be 1-64 characters, got 65'],
  ])('refuses the name %j', (name, message) => {
    const root = tree({ [`${name}/SKILL.md`]: skill(name) })
    const report = validateSkills([root])
    expect(report.errors).toBeGreaterThan(0)
    expect(report.findings.map((f) => f.message).join('\n')).toContain(message)
    expect(report.findings[0]!.line).toBe(2)
  })

  it('checks the folder name, description length, keys and field types', () => {
    const root = tree({
      'folder/SKILL.md': skill('other-name'),
      'empty/SKILL.md': '---\nname: empty\ndescription: ""\n---\n',
      'long/SKILL.md': `---\nname: long\ndescription: ${'d'.repeat(1025)}\n---\n`,
      'exact/SKILL.md': `---\nname: exact\ndescription: ${'d'.repeat(1024)}\n---\n`,
      'extra/SKILL.md': skill('extra', 'version: 2\nlicence: MIT\nmetadata:\n  n: 1\nallowed-tools: [a, b]\ncompatibility: ' + 'c'.repeat(501) + '\n'),
    })
    expect(messages(root)).toEqual([
      'empty/SKILL.md:3: error: description must be a non-empty string',
      `extra/SKILL.md:4: error: unknown front-matter key "version": the specification allows name, description, license, compatibility, metadata, allowed-tools`,
      `extra/SKILL.md:5: error: unknown front-matter key "licence" (did you mean "license"?): the specification allows name, description, license, compatibility, metadata, allowed-tools`,
      'extra/SKILL.md:6: error: metadata.n must be a string, got number',
      'extra/SKILL.md:8: error: allowed-tools must be a space-separated string',
      'extra/SKILL.md:9: error: compatibility must be at most 500 characters, got 501',
      'folder/SKILL.md:2: error: name "other-name" must equal its folder\'s name "folder"',
      'long/SKILL.md:3: error: description must be at most 1024 characters, got 1025',
    ])
  })

  it('warns on long bodies, links to missing files and links that leave the folder', () => {
    const outside = tree({ 'secret.txt': 'shh' })
    const root = tree({
      'linky/SKILL.md': skill(
        'linky',
        '',
        'Read [missing](references/nope.md), [up](../other/x.md) and [web](https://example.com).\n\n```\n[in code](ignored.md)\n```\n',
      ),
      'other/x.md': 'x',
      'longbody/SKILL.md': skill('longbody', '', 'line\n'.repeat(520)),
      'escape/SKILL.md': skill('escape', '', 'See [notes](notes.txt).\n'),
    })
    symlinkSync(join(outside, 'secret.txt'), join(root, 'escape/notes.txt'))
    expect(messages(root)).toEqual([
      expect.stringMatching(/^escape\/SKILL\.md:5: warning: link to "notes\.txt" leads outside the skill's folder/),
      'linky/SKILL.md:5: warning: link to "references/nope.md", which does not exist',
      expect.stringMatching(/^linky\/SKILL\.md:5: warning: link to "\.\.\/other\/x\.md" leads outside the skill's folder/),
      'longbody/SKILL.md:505: warning: the body has 521 lines; keep it under 500 and move detail to references/',
    ])
  })

  it('prints one line per finding, a summary, JSON on request, and exits 1 on errors', () => {
    const root = tree({ 'ok/SKILL.md': skill('ok'), 'Bad/SKILL.md': skill('Bad') })
    const run = spawnSync(process.execPath, [MAIN, 'skills', 'validate', root], { encoding: 'utf8' })
    expect(run.status).toBe(1)
    expect(run.stdout.trim().split('\n')).toEqual([
      `${root}/Bad/SKILL.md:2: error: name "Bad" must use only a-z, 0-9 and hyphens, without a leading, trailing or doubled hyphen`,
      '2 skills checked: 1 error, 0 warnings',
    ])
    const json = JSON.parse(spawnSync(process.execPath, [MAIN, 'skills', 'validate', join(root, 'ok'), '--json'], { encoding: 'utf8' }).stdout)
    expect(json).toEqual({ skills: 1, errors: 0, warnings: 0, findings: [] })
    const missing = spawnSync(process.execPath, [MAIN, 'skills', 'validate', join(root, 'nope')], { encoding: 'utf8' })
    expect(missing.status).toBe(1)
    expect(missing.stdout).toContain(`${join(root, 'nope')}:1: error: not a directory`)
  })
})

describe('loading skill folders', () => {
  it("loads the project's .agents/skills when projectSkills is on", () => {
    const project = tree({
      '.agents/skills/project-helper/SKILL.md': skill('project-helper'),
      'skillplane.config.mjs': 'export default { projectSkills: true }\n',
    })
    const run = spawnSync(process.execPath, [MAIN, '--data-dir', join(project, 'data'), 'skills', 'list', '--source', 'agent-skill', '--json'], {
      cwd: project,
      encoding: 'utf8',
    })
    expect(run.stderr).toBe('')
    expect(JSON.parse(run.stdout).map((s: { key: string }) => s.key)).toEqual([
      'activate_skill',
      'list_skills',
      'project-helper',
      'read_skill_resource',
      'run_skill_script',
    ])
    writeFileSync(join(project, 'skillplane.config.mjs'), 'export default {}\n')
    const off = spawnSync(process.execPath, [MAIN, '--data-dir', join(project, 'data'), 'skills', 'list', '--source', 'agent-skill', '--json'], {
      cwd: project,
      encoding: 'utf8',
    })
    expect(JSON.parse(off.stdout)).toEqual([])
  })

  it('loads leniently, skips what it cannot use, and lets the first root win a name', () => {
    const first = tree({
      'shared/SKILL.md': skill('shared'),
      'mismatch/SKILL.md': skill('other-name', 'version: 3\n'),
      'nodesc/SKILL.md': '---\nname: nodesc\n---\n',
      'node_modules/hidden/SKILL.md': skill('hidden'),
      'nested/deeper/deepest/SKILL.md': skill('deepest'),
      'tmpl/SKILL.md.template': skill('tmpl', '', 'Hello {{user}}\n'),
      'plain-dir/README.md': 'no skill here',
    })
    const second = tree({ 'shared/SKILL.md': skill('shared'), 'only-second/SKILL.md': skill('only-second') })
    const { skills, findings } = loadInstructionSkills([first, second])
    expect(skills.map((s) => s.name).sort()).toEqual(['deepest', 'only-second', 'other-name', 'shared', 'tmpl'])
    expect(skills.find((s) => s.name === 'shared')!.file).toBe(join(first, 'shared/SKILL.md'))
    expect(skills.find((s) => s.name === 'tmpl')).toMatchObject({ template: true, body: 'Hello {{user}}\n' })
    const lines = findings.map((f) => `${f.severity}: ${f.message}`)
    expect(lines).toEqual(
      expect.arrayContaining([
        'warning: unknown front-matter key "version": the specification allows name, description, license, compatibility, metadata, allowed-tools',
        'warning: name "other-name" must equal its folder\'s name "mismatch"',
        'error: description is required',
        `warning: skill "shared" is shadowed by ${join(first, 'shared/SKILL.md')}, found first; skipped`,
      ]),
    )
    expect(findings.find((f) => f.message === 'description is required')?.file).toBe(join(first, 'nodesc/SKILL.md'))
  })

  it('follows symlinked folders only inside the root, and caps depth and count', () => {
    const elsewhere = tree({ 'stray/SKILL.md': skill('stray') })
    const root = tree({ 'real/SKILL.md': skill('real'), 'a/b/c/d/SKILL.md': skill('d') })
    symlinkSync(join(root, 'real'), join(root, 'alias'))
    symlinkSync(join(elsewhere, 'stray'), join(root, 'stray'))
    const { skills, findings } = loadInstructionSkills([root])
    expect(skills.map((s) => s.name).sort()).toEqual(['d', 'real'])
    expect(findings).toEqual([
      expect.objectContaining({ file: join(root, 'stray'), severity: 'error', message: expect.stringContaining('symlink resolves outside') }),
    ])
    expect(loadInstructionSkills([root], { maxDepth: 2, maxSkills: 100 }).skills.map((s) => s.name)).toEqual(['real'])
    const capped = loadInstructionSkills([root], { maxDepth: 6, maxSkills: 1 })
    expect(capped.skills).toHaveLength(1)
    expect(capped.findings.map((f) => f.message)).toContain('stopped at 1 skills')
  })
})
