import { linkSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { tempDir, tree } from '../../src/test-support/databases.js'
import { defineSkill } from '../../src/skill/define-skill.js'
import { testSkills } from '../../src/test-support/fixtures.js'
import { startTarget, type Target } from './harness.js'

const md = (name: string, body = 'Read references/notes.md first.\n') => `---\nname: ${name}\ndescription: The ${name} skill\n---\n${body}`

describe('path, process and template escapes over HTTP', () => {
  let target: Target
  let root: string
  let outside: string
  beforeAll(async () => {
    outside = tempDir('skillplane-outside-')
    writeFileSync(join(outside, 'secret.txt'), 'the host secret\n')
    root = tree(
      {
        'ops/SKILL.md': md('ops'),
        'ops/references/notes.md': 'notes\n',
        'ops/scripts/ok.sh': '#!/bin/sh\necho "ok $#"\n',
        'ops/scripts/orphan.sh': '#!/nonexistent/interpreter\necho never\n',
      },
      ['ops/scripts/ok.sh', 'ops/scripts/orphan.sh'],
    )
    const broken = tree({ 'broken/SKILL.md.template': '---\nname: broken\ndescription: A template that fails to render\n---\n{{#unclosed}}\n' })
    // Hard links inside the folder name a file from outside it (same filesystem: both under tmp).
    linkSync(join(outside, 'secret.txt'), join(root, 'ops/references/linked.txt'))
    linkSync(join(root, 'ops/scripts/ok.sh'), join(outside, 'ok-again.sh'))
    writeFileSync(join(outside, 'SKILL.md'), md('linked'))
    mkdirSync(join(root, 'linked'))
    linkSync(join(outside, 'SKILL.md'), join(root, 'linked', 'SKILL.md'))
    const reader = defineSkill({
      key: 'read_config_file',
      description: 'Reads a file the server keeps (a code skill whose fs error must not name server paths)',
      class: 'safe',
      input: z.object({}),
      run: async () => (await import('node:fs/promises')).readFile(join(outside, 'no-such-dir', 'app.conf'), 'utf8'),
    })
    target = await startTarget({
      skillDirs: [
        { path: root, agents: ['Helper'] },
        { path: broken, agents: [] },
      ],
      skills: [...testSkills(), reader],
    })
  })
  afterAll(() => target.close())

  const invoke = async (skill: string, input: unknown) => {
    const answer = await target.send('POST', `/api/skills/${skill}/invoke`, target.keys.admin, JSON.stringify({ input }))
    return { status: answer.status, body: JSON.parse(answer.text) as { ok: boolean; data?: any; error?: { code: string; message: string } } }
  }
  const noServerPaths = (text: string) => {
    for (const path of [root, outside, '/tmp/', '/nonexistent']) expect(text).not.toContain(path)
  }

  it('refuses a NUL in a script argument or path with invalid_input (400), before anything runs', async () => {
    for (const input of [
      { skill: 'ops', script: 'ok.sh', args: ['a\u0000b'] },
      { skill: 'ops', script: 'ok.sh\u0000.txt' },
    ]) {
      const { status, body } = await invoke('run_skill_script', input)
      expect({ status, code: body.error?.code }).toEqual({ status: 400, code: 'invalid_input' })
      expect(body.error?.message).toContain('must not contain a NUL character')
    }
    const read = await invoke('read_skill_resource', { skill: 'ops', path: 'references/notes.md\u0000' })
    expect({ status: read.status, code: read.body.error?.code }).toEqual({ status: 400, code: 'invalid_input' })
  })

  it('answers a script that is a folder, missing or unstartable with a clear error naming no server path', async () => {
    const folder = await invoke('run_skill_script', { skill: 'ops', script: '.' })
    expect(folder).toMatchObject({ status: 400, body: { error: { code: 'invalid_input', message: '"scripts/" is not a file' } } })
    const missing = await invoke('run_skill_script', { skill: 'ops', script: 'scripts/nope.sh' })
    expect(missing).toMatchObject({ status: 404, body: { error: { code: 'not_found', message: expect.stringContaining('does not exist') } } })
    const orphan = await invoke('run_skill_script', { skill: 'ops', script: 'orphan.sh' })
    expect(orphan).toMatchObject({ status: 502, body: { error: { code: 'executor_error', message: expect.stringContaining("can't start it (ENOENT)") } } })
    const fsError = await invoke('read_config_file', {})
    expect(fsError).toMatchObject({
      status: 502,
      body: { error: { code: 'executor_error', message: expect.stringContaining("ENOENT: no such file or directory, open 'app.conf'") } },
    })
    const template = await invoke('activate_skill', { name: 'broken' })
    expect(template).toMatchObject({ status: 502, body: { error: { message: expect.stringContaining('broken/SKILL.md.template:') } } })
    const activated = await invoke('activate_skill', { name: 'ops' })
    expect(activated).toMatchObject({ status: 200, body: { data: { content: expect.stringContaining('<file>references/notes.md</file>') } } })
    for (const answer of [folder, missing, orphan, fsError, template, activated]) noServerPaths(JSON.stringify(answer.body))
  })

  it('never serves, lists or runs a file with other hard links', async () => {
    const read = await invoke('read_skill_resource', { skill: 'ops', path: 'references/linked.txt' })
    expect(read).toMatchObject({ status: 400, body: { error: { code: 'invalid_input', message: expect.stringContaining('has other hard links') } } })
    expect(JSON.stringify(read.body)).not.toContain('the host secret')
    const run = await invoke('run_skill_script', { skill: 'ops', script: 'ok.sh' })
    expect(run).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_input', message: expect.stringContaining('"scripts/ok.sh" has other hard links') } },
    })
    const activated = await invoke('activate_skill', { name: 'ops' })
    expect(activated.body.data.content).not.toContain('linked.txt')
    expect(activated.body.data.content).not.toContain('ok.sh')
    // A SKILL.md with other links is not loaded at all.
    expect(await invoke('activate_skill', { name: 'linked' })).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } })
    const sources = await target.send('GET', '/api/sources', target.keys.admin)
    expect(sources.text).toContain('hard links, so it may be a file from outside the skill')
    // The export ships what is served, and nothing else.
    const exported = await target.send('GET', '/api/agents/helper/skills-export', target.keys.admin)
    expect(exported.status).toBe(200)
    expect(exported.text).toContain('references/notes.md')
    expect(exported.text).not.toContain('the host secret')
    expect(exported.text).not.toContain('linked.txt')
  })
})
