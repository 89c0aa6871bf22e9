import { existsSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { databases, tempDir, tree } from '../../test-support/databases.js'
import { agentCaller, openTestPlane, operator } from '../../test-support/fixtures.js'
import { defineSkill } from '../../skill/define-skill.js'
import type { Skillplane } from '../../agents/index.js'
import { validateSkills } from './validate-skills.js'
import { renderTemplate, type TemplateView } from './render-template.js'
import { writeExport, MANIFEST } from './build-export.js'

const md = (name: string, body = 'Body\n') => `---\nname: ${name}\ndescription: The ${name} skill\n---\n${body}`
const helper = agentCaller('helper')

describe.each(databases)('instruction skills hold their boundaries on $name', (database) => {
  const planes: Skillplane[] = []
  afterEach(async () => {
    await Promise.all(planes.splice(0).map((p) => p.close()))
  })
  const open = async (config: Parameters<typeof openTestPlane>[1]) => {
    const plane = await openTestPlane(database, config)
    planes.push(plane)
    return plane
  }

  it('refuses a scripts/ folder that is a symlink out of the skill, and a skill folder swapped after loading', async () => {
    const root = tree({ 'tools/SKILL.md': md('tools'), 'swap/SKILL.md': md('swap'), 'swap/notes.md': 'n' })
    symlinkSync('/bin', join(root, 'tools/scripts'))
    const plane = await open({ skillDirs: [{ path: root, agents: ['Helper'] }] })
    expect(await plane.invoke('run_skill_script', { skill: 'tools', script: 'echo', args: ['pwned'] }, { caller: operator })).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining('no longer inside the folder it was loaded from') },
    })
    renameSync(join(root, 'swap'), join(root, 'swap-old'))
    symlinkSync('/etc', join(root, 'swap'))
    expect(await plane.invoke('read_skill_resource', { skill: 'swap', path: 'hostname' }, { caller: helper })).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining("the skill's folder is no longer inside the folder it was loaded from") },
    })
  })

  it('answers the same for a missing and an existing path outside the folder', async () => {
    const root = tree({ 'guide/SKILL.md': md('guide') })
    const plane = await open({ skillDirs: [{ path: root, agents: ['Helper'] }] })
    const read = async (path: string) => {
      const r = await plane.invoke('read_skill_resource', { skill: 'guide', path }, { caller: helper })
      return r.ok ? 'ok' : r.error.message
    }
    expect(await read('../../../../../../etc/hostname')).toBe(
      await read('../../../../../../etc/no-such-file').then((m) => m.replace('no-such-file', 'hostname')),
    )
  })

  it('kills what a script leaves running after it exits', async () => {
    const marker = join(tempDir(), 'marker')
    const root = tree({ 'bg/SKILL.md': md('bg'), 'bg/scripts/bg.sh': `#!/bin/sh\n(sleep 0.5; echo alive > ${marker}) &\necho started\n` }, ['bg/scripts/bg.sh'])
    const plane = await open({ skillDirs: [{ path: root, agents: ['Helper'] }] })
    expect(await plane.invoke('run_skill_script', { skill: 'bg', script: 'bg.sh' }, { caller: operator })).toMatchObject({
      ok: true,
      data: { stdout: 'started\n' },
    })
    await new Promise((r) => setTimeout(r, 900))
    expect(existsSync(marker)).toBe(false)
  })

  it('keeps bindings to their own folder, and skips a skill whose name a code skill has', async () => {
    const shared = tempDir('skillplane-prefix-')
    for (const [dir, name] of [
      ['skills', 'public-guide'],
      ['skills-private', 'secret-ops'],
      ['skills-private', 'echo'],
    ]) {
      mkdirSync(join(shared, dir!, name!), { recursive: true })
      writeFileSync(join(shared, dir!, name!, 'SKILL.md'), md(name!))
    }
    const plane = await open({
      skillDirs: [
        { path: join(shared, 'skills'), agents: ['Helper'] },
        { path: join(shared, 'skills-private'), agents: [] },
      ],
    })
    const listed = await plane.invoke('list_skills', {}, { caller: helper })
    expect(listed).toMatchObject({ ok: true, data: { skills: [{ name: 'public-guide' }] } })
    expect(plane.skills.instructions.findings).toContainEqual(
      expect.objectContaining({ severity: 'error', message: expect.stringMatching(/^name "echo" is taken by skill "echo"/) }),
    )
  })

  it('renders before recording an activation, and keeps activations per caller', async () => {
    const root = tree({ 'tpl/SKILL.md.template': '---\nname: tpl\ndescription: Template\n---\nHi {{user.name}}\n' })
    const plane = await open({ skillDirs: [{ path: root, agents: ['Helper'] }] })
    const braces = { kind: 'agent' as const, id: 'k-braces', name: 'x {{y}}', agentId: 'helper' }
    expect(await plane.invoke('activate_skill', { name: 'tpl' }, { caller: braces, conversationId: 'c1' })).toMatchObject({ ok: false })
    expect(await plane.invoke('activate_skill', { name: 'tpl' }, { caller: braces, conversationId: 'c1' })).toMatchObject({ ok: false })
    expect(await plane.invoke('activate_skill', { name: 'tpl' }, { caller: helper, conversationId: 'c1' })).toMatchObject({
      ok: true,
      data: { alreadyActive: false },
    })
    const other = { ...helper, id: 'k-other' }
    expect(await plane.invoke('activate_skill', { name: 'tpl' }, { caller: other, conversationId: 'c1' })).toMatchObject({
      ok: true,
      data: { alreadyActive: false },
    })
  })

  it('never uses an invalid name as a path, and never writes or deletes outside the export folder', async () => {
    const root = tree({ 'good-folder/SKILL.md': '---\nname: ../../escape\ndescription: Bad name\n---\nBody\n' })
    const plane = await open({
      skillDirs: [{ path: root, agents: ['Helper'] }],
      skills: [defineSkill({ key: 'noop', description: 'x', class: 'safe', input: z.object({}), run: () => null })],
    })
    expect(plane.skills.instructions.skills.map((s) => s.name)).toEqual(['good-folder'])
    const base = tempDir('skillplane-out-')
    const out = join(base, 'out')
    writeFileSync(join(base, 'victim.txt'), 'keep me')
    mkdirSync(out)
    writeFileSync(join(out, MANIFEST), JSON.stringify({ files: { '../victim.txt': 'x', 'old/gone.md': 'y' } }))
    mkdirSync(join(out, 'old'))
    writeFileSync(join(out, 'old/gone.md'), 'stale')
    const result = writeExport(plane.skills.export(helper, 'helper'), out)
    expect(result).toEqual({ written: ['good-folder/SKILL.md'], removed: ['old/gone.md'] })
    expect(readFileSync(join(base, 'victim.txt'), 'utf8')).toBe('keep me')
    expect(existsSync(join(out, 'old'))).toBe(false)
    expect(existsSync(join(base, 'escape'))).toBe(false)
    // A file edited in the export folder is put back on the next export.
    writeFileSync(join(out, 'good-folder/SKILL.md'), 'tampered')
    expect(writeExport(plane.skills.export(helper, 'helper'), out)).toEqual({ written: ['good-folder/SKILL.md'], removed: [] })
  })
})

describe('strict edges', () => {
  const view: TemplateView = { user: { id: 'u', name: 'alice', role: 'admin' }, agent: null, vars: { site: 'x' }, denied: { notes: [] } }
  it('refuses inherited names and fields of inverted sections, and leaves no double gap', () => {
    expect(renderTemplate('{{vars.constructor}}', view)).toMatchObject({ ok: false })
    expect(renderTemplate('{{^agent}}Hello {{name}}{{/agent}}', view)).toMatchObject({ ok: false, message: expect.stringContaining('"name"') })
    expect(renderTemplate('Intro.\n\n{{> denied_actions.notes}}\n\nNext.\n', view, 1, ['notes'])).toEqual({ ok: true, text: 'Intro.\n\nNext.\n' })
  })

  it('reports a misnamed skill.md and a folder without any skill', () => {
    const root = tree({ 'lower/skill.md': md('lower') })
    const empty = tree({ 'README.md': 'nothing' })
    const report = validateSkills([root, empty])
    expect(report.findings.map((f) => f.message).sort()).toEqual([
      'no SKILL.md in this folder or its subfolders',
      'the file must be named SKILL.md, not skill.md; skipped',
    ])
    expect(report.errors).toBe(2)
  })
})
