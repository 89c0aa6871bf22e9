import { mkdirSync, readFileSync, statSync, writeFileSync, chmodSync, existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import tar from 'tar-stream'
import { databases, tempDir } from '../../test-support/databases.js'
import { admin, agentCaller, openTestPlane } from '../../test-support/fixtures.js'
import { startHttpServer, type HttpServer } from '../../surfaces/http/start-http-server.js'
import type { Skillplane } from '../../agents/index.js'
import { renderTemplate, checkTemplate, type TemplateView } from './render-template.js'
import { writeExport, MANIFEST } from './build-export.js'

const view = (denied: Record<string, string[]> = {}): TemplateView => ({
  user: { id: 'k1', name: 'alice', role: 'operator' },
  agent: { id: 'fleet', name: 'Fleet Autonomy' },
  vars: { site: 'eu-west' },
  denied,
})

describe('SKILL.md.template rendering', () => {
  const template = '# For {{user.name}} at {{vars.site}}\n\n{{#agent}}\nActing as {{name}}.\n{{/agent}}\n{{> denied_actions.storage}}\nStep one.\n'

  it('renders variables and sections, and the denied-actions line only when something is denied', () => {
    expect(renderTemplate(template, view({ storage: ['wipe_volume', 'resize_volume'] }), 5, ['storage'])).toEqual({
      ok: true,
      text: '# For alice at eu-west\n\nActing as Fleet Autonomy.\nThese actions are unavailable and should not be attempted: wipe_volume, resize_volume.\nStep one.\n',
    })
    expect(renderTemplate(template, { ...view(), agent: null }, 5, ['storage'])).toEqual({ ok: true, text: '# For alice at eu-west\n\nStep one.\n' })
    // Values are Markdown, not HTML: nothing is entity-escaped.
    expect(renderTemplate('{{user.name}}', { ...view(), user: { id: 'x', name: 'a<b & c', role: 'admin' } })).toEqual({ ok: true, text: 'a<b & c' })
  })

  it('refuses unknown variables and partials, broken tags and leftover placeholders, naming the line', () => {
    expect(renderTemplate('line\n{{user.email}}\n', view(), 10)).toEqual({
      ok: false,
      line: 11,
      message: expect.stringContaining('unknown template variable "user.email"'),
    })
    expect(renderTemplate('{{vars.region}}', view())).toMatchObject({ ok: false, message: expect.stringContaining('"vars.region"') })
    expect(renderTemplate('{{> denied_actions.nothere}}', view(), 1, ['storage'])).toMatchObject({
      ok: false,
      message: expect.stringContaining('unknown partial'),
    })
    expect(renderTemplate('a\n{{#agent}}\nno close\n', view(), 1)).toMatchObject({ ok: false, message: expect.stringContaining('template syntax') })
    expect(renderTemplate('{{vars.site}}', { ...view(), vars: { site: '{{oops}}' } })).toEqual({
      ok: false,
      line: 1,
      message: 'a "{{" is left over after rendering (a value put into the template contains one)',
    })
    expect(checkTemplate('{{vars.anything}} {{> denied_actions.any}}')).toMatchObject({ ok: true })
    expect(checkTemplate('{{nope}}')).toMatchObject({ ok: false })
  })
})

describe.each(databases)('templates and export on $name', (database) => {
  const planes: Skillplane[] = []
  let server: HttpServer | undefined
  afterEach(async () => {
    await server?.close()
    server = undefined
    await Promise.all(planes.splice(0).map((p) => p.close()))
  })

  const skillsRoot = () => {
    const root = tempDir('skillplane-tmpl-')
    const files: Record<string, string> = {
      'ops-guide/SKILL.md.template':
        '---\nname: ops-guide\ndescription: How to operate\n---\n# Hello {{user.name}}\n{{> denied_actions.general}}\nDo things.\n',
      'ops-guide/scripts/run.sh': '#!/bin/sh\necho hi\n',
      'plain/SKILL.md': '---\nname: plain\ndescription: Plain skill\n---\nBody\n',
    }
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true })
      writeFileSync(join(root, path), content)
    }
    chmodSync(join(root, 'ops-guide/scripts/run.sh'), 0o755)
    return root
  }

  it('renders templates on activation, never serves them raw, and exports only what changed', async () => {
    const root = skillsRoot()
    const plane = await openTestPlane(database, { skillDirs: [{ path: root, agents: ['Helper'] }] })
    planes.push(plane)
    const helper = agentCaller('helper')
    const activated = await plane.invoke('activate_skill', { name: 'ops-guide' }, { caller: helper })
    expect(activated).toMatchObject({ ok: true, data: { content: expect.stringContaining('# Hello helper-key\nDo things.') } })
    expect(await plane.invoke('read_skill_resource', { skill: 'ops-guide', path: 'SKILL.md.template' }, { caller: helper })).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining('the raw SKILL.md.template is not served') },
    })

    const out = tempDir('skillplane-export-')
    const first = writeExport(plane.skills.export(helper, 'helper'), out)
    expect(first.written.sort()).toEqual(['ops-guide/SKILL.md', 'ops-guide/scripts/run.sh', 'plain/SKILL.md'])
    expect(existsSync(join(out, 'ops-guide/SKILL.md.template'))).toBe(false)
    expect(readFileSync(join(out, 'ops-guide/SKILL.md'), 'utf8')).toBe(
      '---\nname: ops-guide\ndescription: How to operate\n---\n# Hello helper-key\nDo things.\n',
    )
    expect(statSync(join(out, 'ops-guide/scripts/run.sh')).mode & 0o111).not.toBe(0)
    const manifest = JSON.parse(readFileSync(join(out, MANIFEST), 'utf8'))
    expect(Object.keys(manifest.files)).toEqual(['ops-guide/scripts/run.sh', 'ops-guide/SKILL.md', 'plain/SKILL.md'])
    expect(writeExport(plane.skills.export(helper, 'helper'), out)).toEqual({ written: [], removed: [] })

    // A policy change shows up in the next export: the denied line appears.
    await plane.policies.set({ skill: 'echo', level: 'agent', subject: 'helper', decision: 'DENY' }, admin, plane.now())
    expect(writeExport(plane.skills.export(helper, 'helper'), out)).toEqual({ written: ['ops-guide/SKILL.md'], removed: [] })
    expect(readFileSync(join(out, 'ops-guide/SKILL.md'), 'utf8')).toContain('These actions are unavailable and should not be attempted: echo.')
    await plane.skills.edit('plain', { enabled: false }, plane.now())
    expect(writeExport(plane.skills.export(helper, 'helper'), out)).toEqual({ written: [], removed: ['plain/SKILL.md'] })
  })

  it('exports over HTTP as a tar stream', async () => {
    const root = skillsRoot()
    const location = await database.create()
    const plane = await openTestPlane(database, { skillDirs: [{ path: root, agents: ['Helper'] }] }, location)
    planes.push(plane)
    server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    const adminKey = (await plane.people.keys.create({ name: 'root', role: 'admin' }, plane.now())).key
    const agentKey = (await plane.people.keys.create({ name: 'other-bot', role: 'agent', agentId: 'other' }, plane.now())).key
    const response = await fetch(`${server.url}/api/agents/helper/skills-export`, { headers: { authorization: `Bearer ${adminKey}` } })
    expect(response.headers.get('content-type')).toBe('application/x-tar')
    const names: string[] = []
    const extract = tar.extract()
    extract.on('entry', (header, stream, next) => {
      names.push(header.name)
      stream.on('end', next)
      stream.resume()
    })
    const done = new Promise<void>((resolve) => extract.on('finish', () => resolve()))
    extract.end(Buffer.from(await response.arrayBuffer()))
    await done
    expect(names).toEqual(['ops-guide/scripts/run.sh', 'ops-guide/SKILL.md', 'plain/SKILL.md', MANIFEST])
    expect((await plane.audit.events.list({ subject: 'agent:helper', kind: 'skills.exported', limit: 5 })).items).toEqual([
      expect.objectContaining({ actor: expect.objectContaining({ name: 'root' }), details: { as: 'Helper', skills: ['ops-guide', 'plain'], files: 3 } }),
    ])
    expect((await fetch(`${server.url}/api/agents/helper/skills-export`, { headers: { authorization: `Bearer ${agentKey}` } })).status).toBe(404)
  })
})
