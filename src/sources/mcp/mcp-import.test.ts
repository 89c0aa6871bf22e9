import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { databases, tempDir, waitFor } from '../../test-support/databases.js'
import { admin, agentCaller, openTestPlane, operator } from '../../test-support/fixtures.js'
import type { Skillplane } from '../../agents/index.js'
import type { SkillplaneConfig } from '../../config/define-config.js'
import { skillDetail, skillSummary } from '../../registry/skill-view.js'
import { startHttpServer } from '../../surfaces/http/start-http-server.js'
import { mcpToolList } from '../../surfaces/mcp/mcp-tool-list.js'

const FIXTURE = join(import.meta.dirname, 'fixtures/test-mcp-server.mjs')
const ROOT = join(import.meta.dirname, '../../..')
const MAIN = join(ROOT, 'dist/surfaces/cli/main.js')
const [sqlite] = databases
const stdioServer = (extra: object = {}) => ({ name: 'fix', command: process.execPath, args: [FIXTURE, 'stdio'], ...extra })
const FIXTURE_KEYS = [
  'fix_add_tool',
  'fix_address',
  'fix_busy',
  'fix_calls',
  'fix_crash',
  'fix_deploy_fleet',
  'fix_echo',
  'fix_fail',
  'fix_long_job',
  'fix_picture',
  'fix_report',
  'fix_slow',
  'fix_wipe',
]

/** The fixture over Streamable HTTP on 127.0.0.1 (port 0: any free one), without a standalone event stream. */
async function startHttpFixture(port = 0): Promise<{ child: ChildProcess; port: number; url: string }> {
  const child = spawn(process.execPath, [FIXTURE, 'http', String(port), 'nosse'], { stdio: ['ignore', 'pipe', 'inherit'] })
  const [chunk] = (await once(child.stdout!, 'data')) as [Buffer]
  const bound = Number(/listening (\d+)/.exec(chunk.toString())![1])
  return { child, port: bound, url: `http://127.0.0.1:${bound}/mcp` }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  child.kill('SIGKILL')
  await once(child, 'exit')
}

describe('MCP import', () => {
  const planes: Skillplane[] = []
  const children: ChildProcess[] = []
  afterEach(async () => {
    await Promise.all(planes.splice(0).map((p) => p.close()))
    await Promise.all(children.splice(0).map(stop))
  })
  const open = async (config: SkillplaneConfig, database = sqlite!) => {
    const plane = await openTestPlane(database, config)
    planes.push(plane)
    return plane
  }

  it('imports a stdio server: verbatim schemas, classes from annotations, results, errors, cancellation, list changes, a crash', async () => {
    const marker = join(tempDir('skillplane-mcp-marker-'), 'crashed')
    const plane = await open({ mcpServers: [stdioServer({ agents: ['Other'], timeoutMs: 1_000, env: { FIXTURE_MARKER: marker } })] })
    const call = (key: string, input: object = {}) => plane.invoke(key, input, { caller: admin })
    const calls = async () => ((await call('fix_calls')) as { data: { structuredContent: Record<string, number> } }).data.structuredContent

    // Fourteen tools over four pages of tools/list, camelCase folded into the key rules; the
    // malformed one is reported and the rest are kept.
    const keys = plane.skills
      .list()
      .filter((s) => s.source === 'mcp')
      .map((s) => s.key)
    expect(keys).toEqual(FIXTURE_KEYS)
    expect(plane.sources.mcpServers()[0]!.problems).toEqual([expect.stringMatching(/^tool "bad_tool" is malformed \(inputSchema\.type: .*\); skipped$/)])
    const deploy = skillDetail(plane.skills.get('fix_deploy_fleet')!, plane.skills)
    expect(deploy).toMatchObject({ class: 'mutating', category: 'fix', source: 'mcp', available: true, agents: ['other'] })
    expect(deploy.inputSchema).toMatchObject({ $schema: 'http://json-schema.org/draft-07/schema#', 'x-vendor-note': 'kept verbatim' })
    expect((deploy.inputSchema as any).properties.groups.items.properties.labels).toEqual({ type: 'object', additionalProperties: { type: 'string' } })
    const echo = skillDetail(plane.skills.get('fix_echo')!, plane.skills)
    expect(echo).toMatchObject({ class: 'safe', title: 'Echo text' })
    expect((echo.outputSchema as any).properties.structuredContent.required).toEqual(['echoed', 'length'])
    expect(plane.skills.get('fix_wipe')!.class).toBe('dangerous')
    // Served again over skillplane's MCP server, the tool keeps its own output schema (its content
    // passes through) as written, $schema last included: a draft-07 schema read as 2020-12 could fail a client's check.
    expect(JSON.stringify(mcpToolList(plane, admin, { mostUsed: [], found: new Set() }).callable.get('fix_echo')!.tool.outputSchema)).toBe(
      JSON.stringify({
        type: 'object',
        properties: { echoed: { type: 'string' }, length: { type: 'integer' } },
        required: ['echoed', 'length'],
        additionalProperties: false,
        $schema: 'http://json-schema.org/draft-07/schema#',
      }),
    )

    // Structured and text content both come back; images too.
    expect(await call('fix_echo', { text: 'hello' })).toMatchObject({
      ok: true,
      data: { content: [{ type: 'text', text: 'hello' }], structuredContent: { echoed: 'hello', length: 5 } },
    })
    expect(await call('fix_picture')).toMatchObject({
      ok: true,
      data: {
        content: [
          { type: 'image', mimeType: 'image/png' },
          { type: 'text', text: 'a dot' },
        ],
      },
    })

    // The nested schema is enforced before the server sees the call.
    const bad = await call('fix_deploy_fleet', { region: 'eu-west', groups: [{ name: 'web', size: 0 }] })
    expect(bad).toMatchObject({ ok: false, error: { code: 'invalid_input', message: expect.stringContaining('/groups/0/size') } })
    expect(await call('fix_deploy_fleet', { region: 'mars', groups: [] })).toMatchObject({ ok: false, error: { code: 'invalid_input' } })
    expect(await call('fix_deploy_fleet', { region: 'eu-west', groups: [{ name: 'web', size: 3, labels: { tier: 'front' } }] })).toMatchObject({
      ok: true,
      data: { content: [{ type: 'text', text: 'deployed 1 groups to eu-west' }] },
    })

    // A destructive tool is dangerous: it waits for approval and never reaches the server.
    const wipe = await call('fix_wipe', { target: '/srv' })
    expect(wipe).toMatchObject({ ok: false, error: { code: 'approval_required' } })
    // An MCP error result is an executor_error carrying the server's message; so is a JSON-RPC
    // error, and neither costs the connection.
    expect(await call('fix_fail')).toMatchObject({
      ok: false,
      error: { code: 'executor_error', message: expect.stringContaining('disk quota exceeded on /var') },
    })
    // A tool that only answers task-based calls is listed as unavailable, with the reason, and never called.
    const task = 'the tool requires task-based calls (execution.taskSupport "required"), which skillplane does not make yet'
    expect(skillDetail(plane.skills.get('fix_long_job')!, plane.skills)).toMatchObject({ available: false, unavailableReason: task })
    expect(await call('fix_long_job')).toMatchObject({ ok: false, error: { code: 'unavailable', message: `skill "fix_long_job" is unavailable: ${task}` } })
    expect(await call('fix_busy')).toMatchObject({
      ok: false,
      error: { code: 'executor_error', message: expect.stringContaining('upstream API rate limited') },
    })
    expect(plane.sources.mcpServers()[0]!.state).toBe('connected')
    // An output schema with local references is checked as the server wrote it.
    expect(await call('fix_address')).toMatchObject({ ok: true, data: { structuredContent: { home: { city: 'Oslo' } } } })
    // The deadline cancels the call on the server too.
    expect(await call('fix_slow', { ms: 20_000 })).toMatchObject({ ok: false, error: { code: 'timeout' } })
    await waitFor(async () => (await calls()).slow_cancelled === 1)
    expect(await calls()).toMatchObject({ deployFleet: 1, echo: 1 })
    expect((await calls()).wipe).toBeUndefined()

    // A tool list change registers the new tool, syncs the catalog and binds it.
    expect(await call('fix_add_tool')).toMatchObject({ ok: true })
    await waitFor(() => plane.skills.isBound('other', 'fix_extra'))
    expect(await plane.invoke('fix_extra', {}, { caller: agentCaller('other') })).toMatchObject({ ok: true, data: { content: [{ text: 'extra ran' }] } })

    // A crash mid-call: an executor_error saying the outcome is unknown. The fixture then refuses
    // to start while its marker file exists: unavailable, with the reason, until it is back.
    const crash = await call('fix_crash')
    expect(crash).toMatchObject({ ok: false, error: { code: 'executor_error', message: expect.stringContaining('whether the tool ran is unknown') } })
    await waitFor(() => plane.sources.mcpServers()[0]!.stderr?.includes('refusing to start') ?? false)
    const down = await call('fix_echo', { text: 'x' })
    expect(down).toMatchObject({ ok: false, error: { code: 'unavailable', message: expect.stringContaining('MCP server "fix"') } })
    expect(skillSummary(plane.skills.get('fix_echo')!, plane.skills)).toMatchObject({ available: false, unavailableReason: expect.stringContaining('fix') })
    // What the server wrote to stderr is for admins (sources), never in what callers see.
    expect(JSON.stringify([crash, down, plane.sources.mcpServers()[0]!.reason])).not.toMatch(/crashing on purpose|refusing to start/)
    // It reconnects with backoff once it can start again, and the audit log has every call.
    rmSync(marker)
    await waitFor(() => plane.sources.mcpServers()[0]!.state === 'connected', 15_000)
    expect(await call('fix_echo', { text: 'back' })).toMatchObject({ ok: true })
    const { items } = await plane.audit.query({ skill: 'fix_crash', limit: 10 })
    expect(items).toMatchObject([{ status: 'error', error: { code: 'executor_error' } }])
  })

  it('imports a Streamable HTTP server with headers, overrides a class, survives a restart and reports a refused connection', async () => {
    const fixture = await startHttpFixture()
    children.push(fixture.child)
    const plane = await open({
      mcpServers: [
        {
          name: 'remote',
          url: fixture.url,
          headers: { 'x-fixture-token': 'let-me-in' },
          tools: { wipe: { class: 'mutating', agents: ['Other'] }, nosuch: { class: 'safe' }, wpie: { class: 'dangerous' } },
        },
        { name: 'locked', url: fixture.url },
      ],
    })
    const call = (key: string, input: object = {}, extra: object = {}) => plane.invoke(key, input, { caller: operator, ...extra })
    const [remote, locked] = plane.sources.mcpServers()
    expect(remote).toMatchObject({
      state: 'connected',
      transport: 'http',
      skills: expect.arrayContaining(['remote_echo', 'remote_wipe']),
      problems: [
        expect.stringContaining('"bad_tool" is malformed'),
        'config tools.nosuch: the server has no tool "nosuch"',
        'config tools.wpie: the server has no tool "wpie" (did you mean "wipe"?)',
      ],
    })
    expect(locked).toMatchObject({ state: expect.stringMatching(/down|connecting/), skills: [], reason: expect.stringContaining('401') })

    expect(await call('remote_echo', { text: 'over http' })).toMatchObject({ ok: true, data: { structuredContent: { echoed: 'over http' } } })
    // Overridden to mutating and bound to an agent: its call takes one approval, then runs with exactly that input.
    const agent = { caller: agentCaller('other') }
    expect(await call('remote_echo', { text: 'x' }, agent)).toMatchObject({ ok: false, error: { code: 'not_found' } })
    const asked = await call('remote_wipe', { target: 'cache' }, agent)
    expect(asked).toMatchObject({ ok: false, error: { code: 'approval_required' } })
    const approvalId = (asked as unknown as { error: { details: { approvalId: string } } }).error.details.approvalId
    expect(await plane.approvals.decide({ id: approvalId, caller: admin, decision: 'approve' })).toMatchObject({ ok: true })
    expect(await call('remote_wipe', { target: 'cache' }, { ...agent, approval: { mode: 'use', approvalId } })).toMatchObject({
      ok: true,
      data: { content: [{ text: 'wiped cache' }] },
    })

    // A restart the client did not notice: the stale session is refused, and the call is sent again on a new one.
    await stop(fixture.child)
    const restarted = await startHttpFixture(fixture.port)
    children.push(restarted.child)
    expect(await call('remote_echo', { text: 'after restart' })).toMatchObject({ ok: true, data: { structuredContent: { echoed: 'after restart' } } })

    // Down: the call is refused as unavailable (never sent), and it comes back once the server does.
    await stop(restarted.child)
    expect(await call('remote_echo', { text: 'x' })).toMatchObject({
      ok: false,
      error: { code: 'unavailable', message: expect.stringContaining('did not take the call, so it did not run') },
    })
    expect(plane.sources.mcpServers()[0]!.state).toMatch(/down|connecting/)
    expect(await call('remote_echo', { text: 'x' })).toMatchObject({ ok: false, error: { code: 'unavailable' } })
    const again = await startHttpFixture(fixture.port)
    children.push(again.child)
    await waitFor(() => plane.sources.mcpServers()[0]!.state === 'connected', 15_000)
    expect(await call('remote_echo', { text: 'back' })).toMatchObject({ ok: true })

    // Killed during a call: the call ends at once as executor_error (outcome unknown), not at its deadline.
    const slow = call('remote_slow', { ms: 60_000 })
    await new Promise((r) => setTimeout(r, 200))
    await stop(again.child)
    expect(await slow).toMatchObject({ ok: false, error: { code: 'executor_error', message: expect.stringContaining('whether the tool ran is unknown') } })
  })

  it('connects a server whose header is a secret once the secret is set, and waits in needs_auth while it is not', async () => {
    const fixture = await startHttpFixture()
    children.push(fixture.child)
    const location = await sqlite!.create()
    const config = { mcpServers: [{ name: 'remote', url: fixture.url, headers: { authorization: { secret: 'FIXTURE_TOKEN', prefix: 'Bearer ' } } }] }
    const plane = await openTestPlane(sqlite!, config, location)
    planes.push(plane)
    expect(plane.sources.mcpServers()[0]).toMatchObject({
      state: 'needs_auth',
      reason: expect.stringContaining('skillplane secrets set FIXTURE_TOKEN'),
      skills: [],
    })

    // A wrong token is refused with the server's body, which quotes it: the reason anyone may read doesn't.
    await plane.values.secrets.set('FIXTURE_TOKEN', 'wrong-token-4321')
    await waitFor(() => plane.sources.mcpServers()[0]!.state === 'down')
    expect(plane.sources.mcpServers()[0]!.reason).toContain('bad credentials: Bearer [REDACTED]')
    expect(JSON.stringify(plane.sources.report())).not.toContain('wrong-token-4321')

    await plane.values.secrets.set('FIXTURE_TOKEN', 'let-me-in')
    await waitFor(() => plane.sources.mcpServers()[0]!.state === 'connected')
    const echoed = await plane.invoke('remote_echo', { text: 'let-me-in, said the header' }, { caller: operator })
    // The server's credential is scrubbed from what comes back, like any injected secret.
    expect(echoed).toMatchObject({ ok: true, data: { structuredContent: { echoed: '[REDACTED], said the header' } } })
    // Rotated while connected: the server is reconnected with the new value (here a wrong one, which it refuses).
    await plane.values.secrets.set('FIXTURE_TOKEN', 'rotated-but-wrong-9876')
    await waitFor(() => plane.sources.mcpServers()[0]!.state === 'down')
    expect(plane.sources.mcpServers()[0]!.reason).toContain('Bearer [REDACTED]')
    await plane.values.secrets.set('FIXTURE_TOKEN', 'let-me-in')
    await waitFor(() => plane.sources.mcpServers()[0]!.state === 'connected')
    await planes.pop()!.close()

    // Deleted: the next start knows the tools it had, lists them as needs_auth, and refuses their calls without sending them.
    const again = await openTestPlane(sqlite!, config, location)
    planes.push(again)
    await again.values.secrets.delete('FIXTURE_TOKEN')
    await again.close()
    const third = await openTestPlane(sqlite!, config, location)
    planes.push(third)
    const skill = third.skills.get('remote_echo')!
    expect(skillSummary(skill, third.skills, third.skills.connectionState(skill, { caller: admin, agentId: null }))).toMatchObject({
      available: true,
      connection: { state: 'needs_auth', missing: { secrets: ['FIXTURE_TOKEN'] } },
    })
    expect(await third.invoke('remote_echo', { text: 'x' }, { caller: admin })).toMatchObject({
      ok: false,
      error: { code: 'needs_auth', details: { missing: { secrets: ['FIXTURE_TOKEN'] } } },
    })
    const listed = mcpToolList(third, admin, { mostUsed: [], found: new Set() }).listed.find((t) => t.name === 'remote_echo')
    expect(listed?.description).toContain('Not connected yet (needs_auth): it needs the secret FIXTURE_TOKEN')
  })

  it.each(databases)('keeps the last known tools of a server that is down ($name), listed as unavailable', async (database) => {
    const location = await database.create()
    const first = await openTestPlane(database, { mcpServers: [stdioServer()] }, location)
    expect(first.sources.mcpServers()[0]!.state).toBe('connected')
    await first.close()

    const plane = await openTestPlane(database, { mcpServers: [stdioServer({ command: '/nonexistent/mcp-server' })] }, location)
    planes.push(plane)
    const [status] = plane.sources.mcpServers()
    expect(status).toMatchObject({
      state: expect.stringMatching(/down|connecting/),
      reason: expect.stringContaining('ENOENT'),
      skills: expect.arrayContaining(['fix_echo']),
    })
    expect(skillSummary(plane.skills.get('fix_echo')!, plane.skills)).toMatchObject({
      available: false,
      unavailableReason: expect.stringContaining('ENOENT'),
    })
    expect(await plane.invoke('fix_echo', { text: 'x' }, { caller: admin })).toMatchObject({
      ok: false,
      error: { code: 'unavailable', message: expect.stringContaining('ENOENT') },
    })
    // Everything else keeps working.
    expect(await plane.invoke('echo', { message: 'still here' }, { caller: admin })).toMatchObject({ ok: true })
  })

  it('never lets an MCP tool take a name another source holds', async () => {
    // Server "late" has a tool "fail": its key late_fail belongs to a code skill.
    const plane = await open({ mcpServers: [{ name: 'late', command: process.execPath, args: [FIXTURE, 'stdio'] }] })
    const [status] = plane.sources.mcpServers()
    expect(status!.problems).toContainEqual(expect.stringContaining('tool "fail": its key "late_fail" is taken by code skill "late_fail"'))
    expect(plane.skills.get('late_fail')!.source).toBe('code')
    expect(status!.skills).toContain('late_echo')
  })

  it('serves the inventory and the server states over HTTP', async () => {
    const plane = await open({ mcpServers: [stdioServer(), { name: 'gone', command: '/nonexistent/mcp-server' }] })
    const server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    try {
      const adminKey = (await plane.people.keys.create({ name: 'root', role: 'admin' }, plane.now())).key
      const viewerKey = (await plane.people.keys.create({ name: 'v', role: 'viewer' }, plane.now())).key
      const get = (path: string, key = adminKey, init: RequestInit = {}) =>
        fetch(`${server.url}${path}`, { ...init, headers: { authorization: `Bearer ${key}` } }).then(async (r) => ({
          status: r.status,
          body: (await r.json()) as any,
        }))

      const skills = await get('/api/skills?source=mcp')
      expect(skills.status).toBe(200)
      expect(skills.body.skills.map((s: { key: string }) => s.key)).toContain('fix_deploy_fleet')
      expect(skills.body.skills.find((s: { key: string }) => s.key === 'fix_wipe')).toMatchObject({ source: 'mcp', class: 'dangerous', available: true })
      expect(
        (await get('/api/skills/fix_echo/invoke', adminKey, { method: 'POST', body: JSON.stringify({ input: { text: 'via http' } }) })).body,
      ).toMatchObject({
        ok: true,
        data: { structuredContent: { echoed: 'via http' } },
      })

      const sources = await get('/api/sources')
      expect(sources.status).toBe(200)
      expect(sources.body.mcp.entries).toMatchObject([
        { name: 'fix', state: 'connected', details: { transport: 'stdio' } },
        { name: 'gone', state: expect.stringMatching(/down|connecting/), reason: expect.stringContaining('ENOENT'), skills: [] },
      ])
      expect((await get('/api/sources', viewerKey)).status).toBe(403)
      const reloaded = await get('/api/sources/reload', adminKey, { method: 'POST' })
      expect(reloaded.body.sources.mcp.entries[0]).toMatchObject({ name: 'fix', state: 'connected' })
    } finally {
      await server.close()
    }
  })

  it('works end to end from the CLI with the demo config', () => {
    const data = tempDir('skillplane-mcp-cli-')
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [MAIN, '--config', 'examples/skillplane.config.ts', '--data-dir', data, ...args], { encoding: 'utf8', cwd: ROOT })
    // A fresh data dir has no stored tool list: invoke connects the server to find the tool.
    const opened = run('invoke', 'tickets_open', '--input', '{"title":"disk almost full","host":"web-1"}')
    expect(JSON.parse(opened.stdout)).toMatchObject({ ok: true, data: { structuredContent: { ticket: { id: 1, severity: 'low', status: 'open' } } } })
    const listed = JSON.parse(run('skills', 'list', '--source', 'mcp', '--json').stdout) as Array<{ key: string; class: string; available: boolean }>
    expect(listed.map((s) => `${s.key}:${s.class}:${s.available}`)).toEqual([
      'tickets_comment:mutating:true',
      'tickets_delete:dangerous:true',
      'tickets_list:safe:true',
      'tickets_open:mutating:true',
    ])
    // The ticket file lives in the data dir, so the next process (a new server process) sees it.
    expect(JSON.parse(run('invoke', 'tickets_list').stdout)).toMatchObject({ ok: true, data: { content: [{ text: '#1 [low] disk almost full (web-1)' }] } })
    const deleting = run('invoke', 'tickets_delete', '--input', '{"id":1}')
    expect(deleting.status).toBe(1)
    expect(JSON.parse(deleting.stdout)).toMatchObject({ ok: false, error: { code: 'approval_required' } })
    expect(JSON.parse(run('invoke', 'tickets_open', '--input', '{"title":"x"}').stdout)).toMatchObject({ ok: false, error: { code: 'invalid_input' } })
    const sources = JSON.parse(run('sources', '--json').stdout)
    expect(sources.mcp.entries).toMatchObject([
      { name: 'tickets', state: 'connected', skills: ['tickets_comment', 'tickets_delete', 'tickets_list', 'tickets_open'] },
    ])
  })
})
