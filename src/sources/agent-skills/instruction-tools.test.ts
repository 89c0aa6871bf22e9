import { symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { databases, tree } from '../../test-support/databases.js'
import { admin, agentCaller, openTestPlane, operator } from '../../test-support/fixtures.js'
import { startHttpServer, type HttpServer } from '../../surfaces/http/start-http-server.js'
import type { Skillplane } from '../../agents/index.js'
import type { Envelope } from '../../skill/skill-types.js'
import { carriesSkillContent } from './skills-prompt.js'

const md = (name: string, description: string, body: string, extra = '') =>
  `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n${extra}---\n${body}`
const data = <T>(envelope: Envelope): T => {
  if (!envelope.ok) throw new Error(`expected ok, got ${JSON.stringify(envelope.error)}`)
  return envelope.data as T
}
const helper = agentCaller('helper')

describe.each(databases)('instruction skills served on $name', (database) => {
  const planes: Skillplane[] = []
  let server: HttpServer | undefined
  afterEach(async () => {
    await server?.close()
    server = undefined
    await Promise.all(planes.splice(0).map((p) => p.close()))
  })

  const fixture = () => {
    const outside = tree({ 'secret.txt': 'top secret' })
    const root = tree(
      {
        'deploy-guide/SKILL.md': md('deploy-guide', 'Ship <safely> & "quickly"', '# Deploy\n\nRead references/steps.md first.\n'),
        'deploy-guide/references/steps.md': 'step one\n',
        'deploy-guide/references/big.bin': 'x'.repeat(300 * 1024),
        'deploy-guide/scripts/ok.sh': '#!/bin/sh\necho "args: $*"; echo "visible=${VISIBLE:-unset} hidden=${HIDDEN:-unset}"\n',
        'deploy-guide/scripts/fail.sh': '#!/bin/sh\necho "first problem" >&2\necho "bad input" >&2\nexit 3\n',
        'deploy-guide/scripts/flood.sh': '#!/bin/sh\nhead -c 3000000 /dev/zero | tr "\\\\0" x\n',
        'deploy-guide/scripts/hang.sh': `#!/bin/sh\n(sleep 1.6; echo survived > ${outside}/grandchild.txt) &\nsleep 30\n`,
        'deploy-guide/scripts/plain.sh': '#!/bin/sh\necho not executable\n',
        'hidden-helper/SKILL.md': md('hidden-helper', 'Only for humans', 'body\n', 'disable-model-invocation: true\n'),
      },
      ['deploy-guide/scripts/ok.sh', 'deploy-guide/scripts/fail.sh', 'deploy-guide/scripts/flood.sh', 'deploy-guide/scripts/hang.sh'],
    )
    symlinkSync(join(outside, 'secret.txt'), join(root, 'deploy-guide/references/leak.txt'))
    return { root, outside }
  }

  const open = async (root: string, location?: { dataDir: string; databaseUrl?: string }) => {
    process.env.VISIBLE = 'yes'
    process.env.HIDDEN = 'no'
    const plane = await openTestPlane(
      database,
      { skillDirs: [{ path: root, agents: ['Helper'] }], skillScripts: { envAllow: ['VISIBLE'], timeoutMs: 1_000 } },
      location,
    )
    planes.push(plane)
    return plane
  }

  it('lists and activates only what the caller may see, escaping XML, once per conversation, across restarts', async () => {
    const { root } = fixture()
    const location = await database.create()
    const plane = await open(root, location)
    const listed = data<{ catalog: string; skills: Array<{ name: string }> }>(await plane.invoke('list_skills', {}, { caller: helper }))
    expect(listed.skills.map((s) => s.name)).toEqual(['deploy-guide'])
    expect(listed.catalog).toBe(
      '<available_skills>\n  <skill>\n    <name>deploy-guide</name>\n    <description>Ship &lt;safely&gt; &amp; &quot;quickly&quot;</description>\n  </skill>\n</available_skills>',
    )
    expect(data<{ skills: unknown[] }>(await plane.invoke('list_skills', {}, { caller: admin })).skills).toHaveLength(2)

    const first = data<{ content: string; alreadyActive: boolean }>(
      await plane.invoke('activate_skill', { name: 'deploy-guide' }, { caller: helper, conversationId: 'conv-1' }),
    )
    expect(first.alreadyActive).toBe(false)
    expect(first.content).toContain('<skill_content name="deploy-guide">')
    expect(first.content).toContain('# Deploy\n\nRead references/steps.md first.')
    expect(first.content).not.toContain('description:')
    expect(first.content).toContain('<file>references/steps.md</file>')
    expect(first.content).not.toContain('step one')
    expect(carriesSkillContent(first.content)).toBe(true)
    const hidden = await plane.invoke('activate_skill', { name: 'hidden-helper' }, { caller: helper, conversationId: 'conv-1' })
    expect(hidden).toMatchObject({ ok: false, error: { code: 'not_found', message: expect.stringContaining('no skill named "hidden-helper" is available') } })
    await plane.close()

    const again = await open(root, location)
    const second = data<{ content: string; alreadyActive: boolean }>(
      await again.invoke('activate_skill', { name: 'deploy-guide' }, { caller: helper, conversationId: 'conv-1' }),
    )
    expect(second).toMatchObject({ alreadyActive: true })
    expect(carriesSkillContent(second.content)).toBe(false)
    expect(
      data<{ alreadyActive: boolean }>(await again.invoke('activate_skill', { name: 'deploy-guide' }, { caller: helper, conversationId: 'conv-2' }))
        .alreadyActive,
    ).toBe(false)
  })

  it('reads resources inside the folder only, with a size cap', async () => {
    const { root } = fixture()
    const plane = await open(root)
    const read = (path: string) => plane.invoke('read_skill_resource', { skill: 'deploy-guide', path }, { caller: helper })
    expect(data(await read('references/steps.md'))).toEqual({ path: 'references/steps.md', content: 'step one\n', bytes: 9, mimeType: 'text/markdown' })
    for (const [path, message] of [
      ['../hidden-helper/SKILL.md', "is outside the skill's folder"],
      ['/etc/passwd', '"/etc/passwd" is an absolute path'],
      ['references/leak.txt', "is outside the skill's folder"],
      ['references', 'is not a file'],
      ['references/big.bin', 'resources are capped at 262144'],
    ]) {
      expect(await read(path!)).toMatchObject({ ok: false, error: { code: 'invalid_input', message: expect.stringContaining(message!) } })
    }
    // A file that isn't there is not found, as an MCP client reading it as a resource expects.
    expect(await read('references/nope.md')).toMatchObject({
      ok: false,
      error: { code: 'not_found', message: '"references/nope.md" does not exist in the skill\'s folder' },
    })
  })

  it('runs scripts in their own group with an empty environment plus the allowlist, and stops bad ones', async () => {
    const { root, outside } = fixture()
    const plane = await open(root)
    const run = (script: string, args: string[] = []) => plane.invoke('run_skill_script', { skill: 'deploy-guide', script, args }, { caller: operator })
    expect(data(await run('ok.sh', ['a b', '--c']))).toEqual({ exitCode: 0, stdout: 'args: a b --c\nvisible=yes hidden=unset\n', stderr: '' })
    expect(await run('fail.sh')).toMatchObject({
      ok: false,
      error: { code: 'executor_error', message: expect.stringContaining('exited with 3: first problem\nbad input') },
    })
    expect(await run('flood.sh')).toMatchObject({ ok: false, error: { message: expect.stringContaining('more than 1048576 bytes to stdout') } })
    // Without the run bit, a .sh script runs through bash.
    expect(await run('plain.sh')).toMatchObject({ ok: true, data: { stdout: 'not executable\n' } })
    expect(await run('../SKILL.md')).toMatchObject({ ok: false, error: { message: expect.stringContaining('outside') } })
    expect(await run('hang.sh')).toMatchObject({ ok: false, error: { code: 'timeout' } })
    // The whole process group died with the 1 s deadline: the grandchild, due to write at 1.6 s, never does.
    await new Promise((r) => setTimeout(r, 1_200))
    const { existsSync } = await import('node:fs')
    expect(existsSync(join(outside, 'grandchild.txt'))).toBe(false)
    // Mutating: an agent asking needs a human approval first.
    expect(await plane.invoke('run_skill_script', { skill: 'deploy-guide', script: 'ok.sh' }, { caller: helper })).toMatchObject({
      ok: false,
      error: { code: 'approval_required' },
    })
  })

  it('serves the skills prompt and lists instruction skills beside executable ones over HTTP', async () => {
    const { root } = fixture()
    const plane = await open(root)
    server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    const agentKey = (await plane.people.keys.create({ name: 'helper-bot', role: 'agent', agentId: 'helper' }, plane.now())).key
    const adminKey = (await plane.people.keys.create({ name: 'root', role: 'admin' }, plane.now())).key
    const get = async (path: string, key: string) => {
      const response = await fetch(server!.url + path, { headers: { authorization: `Bearer ${key}` } })
      return { status: response.status, body: (await response.json()) as any }
    }
    const prompt = await get('/api/agents/helper/skills-prompt', agentKey)
    expect(prompt).toMatchObject({ status: 200, body: { agent: 'helper', prompt: expect.stringContaining('<name>deploy-guide</name>') } })
    expect(prompt.body.prompt).not.toContain('hidden-helper')
    expect(await get('/api/agents/other/skills-prompt', adminKey)).toMatchObject({ status: 200, body: { prompt: '' } })
    expect(await get('/api/agents/other/skills-prompt', agentKey)).toMatchObject({ status: 404 })
    const listed = await get('/api/skills?source=agent-skill', adminKey)
    expect(listed.body.skills.map((s: { key: string }) => s.key)).toEqual([
      'activate_skill',
      'deploy-guide',
      'hidden-helper',
      'list_skills',
      'read_skill_resource',
      'run_skill_script',
    ])
    expect(listed.body.skills.find((s: { key: string }) => s.key === 'deploy-guide')).toMatchObject({
      source: 'agent-skill',
      folder: expect.stringContaining('deploy-guide'),
      agents: ['helper'],
      diagnostics: [],
    })
    expect(listed.body.skills.find((s: { key: string }) => s.key === 'hidden-helper').diagnostics).toEqual([
      expect.objectContaining({
        severity: 'warning',
        message: '"disable-model-invocation" is a client extension, not in the specification; skillplane honours it',
      }),
    ])
    // The tool schema an agent sees names only the skills it may use.
    expect((await get('/api/skills/activate_skill', agentKey)).body.inputSchema).toEqual({
      type: 'object',
      properties: { name: { type: 'string', enum: ['deploy-guide'] } },
      required: ['name'],
      additionalProperties: false,
    })
    expect((await get('/api/skills/activate_skill', adminKey)).body.inputSchema.properties.name.enum).toEqual(['deploy-guide', 'hidden-helper'])
    // An operator's description override is what agents see too; a refused read is a 400, not a server error.
    await fetch(`${server!.url}/api/skills/deploy-guide`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ description: 'Ship with care' }),
    })
    expect((await get('/api/agents/helper/skills-prompt', agentKey)).body.prompt).toContain('<description>Ship with care</description>')
    const outside = await fetch(`${server!.url}/api/skills/read_skill_resource/invoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${agentKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ input: { skill: 'deploy-guide', path: '../hidden-helper/SKILL.md' } }),
    })
    expect(outside.status).toBe(400)
    const asAgent = await get('/api/skills?source=agent-skill', agentKey)
    expect(asAgent.body.skills.map((s: { key: string }) => s.key)).toEqual([
      'activate_skill',
      'deploy-guide',
      'list_skills',
      'read_skill_resource',
      'run_skill_script',
    ])
  })
})
