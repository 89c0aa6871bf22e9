import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createServer } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { databases, tempDir, waitFor, type TestDatabase } from '../../test-support/databases.js'
import { CLI_MAIN, CLI_TEST_CONFIG, runCli, type CliRun } from '../../test-support/run-cli.js'
import { TEST_TIMEOUT_MS } from '../../test-support/test-timeout.js'

const MAIN = CLI_MAIN
const CONFIG = CLI_TEST_CONFIG

const cli = (location: { dataDir: string; databaseUrl?: string }, args: string[], config = CONFIG, input?: string): CliRun =>
  runCli(location, args, { config, ...(input !== undefined && { input }) })

const servers = new Set<ChildProcess>()
afterEach(() => {
  for (const child of servers) child.kill('SIGKILL')
  servers.clear()
})

/** Start `skillplane serve` on a free port; resolves once it printed its URL and admin key. */
function serve(location: { dataDir: string; databaseUrl?: string }) {
  const child = spawn(
    process.execPath,
    [
      MAIN,
      'serve',
      '--port',
      '0',
      '--data-dir',
      location.dataDir,
      '--config',
      CONFIG,
      ...(location.databaseUrl ? ['--database-url', location.databaseUrl] : []),
    ],
    { env: { ...process.env, SKILLPLANE_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  servers.add(child)
  let out = ''
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      servers.delete(child)
      resolve(code)
    }),
  )
  const ready = new Promise<{ url: string; key: string }>((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      out += chunk
      const url = /api\s+(http:\/\/\S+)\/api\/skills/.exec(out)?.[1]
      const key = /admin key \(shown once; store it now\): (sp_\S+)/.exec(out)?.[1]
      if (url && key) resolve({ url, key })
    })
    child.on('exit', () => reject(new Error(`serve exited early: ${out}`)))
  })
  // A serve that never prints a key (a second start) is awaited through output() instead.
  ready.catch(() => {})
  return { child, ready, exited, output: () => out }
}

const oneLine = (run: CliRun) => {
  expect(run.stderr.trim().split('\n')).toHaveLength(1)
  expect(run.stderr).not.toMatch(/\n\s+at /)
}

describe.each(databases)('skillplane CLI on $name', (database: TestDatabase) => {
  it('prints help for every command', async () => {
    const location = await database.create()
    const help = cli(location, ['--help'])
    expect(help.code).toBe(0)
    for (const command of ['serve', 'skills', 'invoke', 'audit', 'sync', 'keys']) expect(help.stdout).toContain(command)
    expect(cli(location, ['keys', 'create', '--help']).stdout).toContain('--role <role>')
    const unknown = cli(location, ['frobnicate'])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain("unknown command 'frobnicate'")
  })

  it('syncs with a dry run first, reporting unknown agents, then for real', async () => {
    const location = await database.create()
    const dry = cli(location, ['sync', '--dry-run'])
    expect(dry.code).toBe(0)
    expect(dry.stdout).toContain('+ skill echo (code, safe)')
    expect(dry.stdout).toContain('+ binding Helper → echo')
    expect(dry.stdout).toContain('! skill echo names unknown agent "Nobody Known"')
    expect(dry.stdout).toContain('(dry run, nothing written)')
    const real = cli(location, ['sync', '--json'])
    expect(real.json().changes).toHaveLength(dry.stdout.split('\n').filter((l) => /^[+~-] /.test(l)).length)
    expect(cli(location, ['sync', '--json']).json().changes).toEqual([])
  })

  it('refuses to sync a config without skills over a catalog that has some, unless forced', async () => {
    const location = await database.create()
    expect(cli(location, ['sync']).code).toBe(0)
    const empty = join(tempDir('skillplane-empty-config-'), 'skillplane.config.ts')
    writeFileSync(empty, 'export default {}\n')
    for (const args of [['sync'], ['sync', '--dry-run']]) {
      const refused = cli(location, args, empty)
      expect(refused.code).toBe(1)
      expect(refused.stderr).toMatch(
        /^skillplane: the config has no skills, and syncing it would orphan all \d+ skills of the catalog: check that the right config was loaded \(--config\), or sync it anyway with skillplane sync --force\n$/,
      )
    }
    expect(cli(location, ['skills', 'list', '--json']).json().length).toBeGreaterThan(0)
    const forced = cli(location, ['sync', '--force', '--json'], empty)
    expect(forced.code).toBe(0)
    expect(forced.json().changes.filter((c: { kind: string }) => c.kind === 'skill_orphaned').length).toBeGreaterThan(0)
  })

  it('sets secrets from stdin only, lists them without values, and deletes them', async () => {
    const location = await database.create()
    const value = 'cli-secret-value-9876'
    const set = cli(location, ['secrets', 'set', 'DEPLOY_TOKEN'], CONFIG, `${value}\n`)
    expect(set.stdout).toBe('set secret DEPLOY_TOKEN (global, version 1)\n')
    expect(cli(location, ['secrets', 'set', 'DEPLOY_TOKEN', '--user', 'alice'], CONFIG, value).stdout).toContain('(user alice, version 1)')
    const asArgument = cli(location, ['secrets', 'set', 'DEPLOY_TOKEN', value])
    expect(asArgument.code).not.toBe(0)
    expect(asArgument.stderr).toMatch(/too many arguments/)
    const empty = cli(location, ['secrets', 'set', 'DEPLOY_TOKEN'], CONFIG, '')
    expect(empty.code).toBe(1)
    expect(empty.stderr).toContain('no value on stdin for secret DEPLOY_TOKEN')
    oneLine(empty)
    const bad = cli(location, ['secrets', 'set', 'deploy-token'], CONFIG, value)
    expect(bad.stderr).toContain('secret name "deploy-token" is not valid')
    oneLine(bad)
    // A bad name is refused before any value is read.
    expect(cli(location, ['secrets', 'set', 'deploy-token'], CONFIG, '').stderr).toContain('secret name "deploy-token" is not valid')
    const list = cli(location, ['secrets', 'list'])
    expect(list.stdout).toMatch(/DEPLOY_TOKEN\s+global\s+1/)
    expect(list.stdout).toMatch(/DEPLOY_TOKEN\s+user alice\s+1/)
    expect(list.stdout + cli(location, ['secrets', 'list', '--json']).stdout).not.toContain(value)
    expect(cli(location, ['settings', 'set', 'REGION', 'eu-west']).stdout).toContain('set setting REGION (global, version 1)')
    expect(cli(location, ['settings', 'list']).stdout).toMatch(/REGION\s+global\s+1\s+\S+\s+\S+\s+eu-west/)
    expect(cli(location, ['secrets', 'delete', 'DEPLOY_TOKEN', '--user', 'alice']).stdout).toContain('deleted secret DEPLOY_TOKEN (user alice, version 1)')
    const again = cli(location, ['secrets', 'delete', 'DEPLOY_TOKEN', '--user', 'alice'])
    expect(again.stderr).toContain('no secret DEPLOY_TOKEN for user alice')
    oneLine(again)
  })

  it('lists and shows skills', async () => {
    const location = await database.create()
    cli(location, ['sync'])
    const list = cli(location, ['skills', 'list', '--json']).json()
    expect(list.map((s: { key: string }) => s.key)).toEqual([
      'discover_skills',
      'echo',
      'memory_delete',
      'memory_get',
      'memory_set',
      'recall_learnings',
      'set_flag',
      'slow',
    ])
    expect(list[0]).toMatchObject({ class: 'safe', source: 'code', agents: ['helper'] })
    const table = cli(location, ['skills', 'list', '--agent', 'helper'])
    expect(table.stdout.split('\n')[0]).toMatch(/^KEY\s+CLASS\s+SCOPE\s+SOURCE/)
    expect(table.stdout).toContain('echo')
    expect(table.stdout).not.toContain('slow')
    // The same filters as GET /api/skills: a tag, and text in the key, title or description (any case).
    const keys = (args: string[]) =>
      cli(location, ['skills', 'list', '--json', ...args])
        .json()
        .map((s: { key: string }) => s.key)
    expect(keys(['--tag', 'greeting'])).toEqual(['echo'])
    expect(keys(['--q', 'MILLISECONDS'])).toEqual(['slow'])
    expect(keys(['--q', 'flag', '--tag', 'greeting'])).toEqual([])
    expect(cli(location, ['skills', 'show', 'echo']).stdout).toContain('"minLength": 1')
    const missing = cli(location, ['skills', 'show', 'nope'])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toBe('skillplane: no skill with key "nope"\n')
  })

  it('invokes in-process as a local admin, audited, with a non-zero exit on failure', async () => {
    const location = await database.create()
    const ok = cli(location, ['invoke', 'echo', '--input', '{"message":"hello"}'])
    expect(ok.code).toBe(0)
    expect(ok.json()).toMatchObject({ ok: true, data: { message: 'hello' } })
    const file = join(tempDir(), 'input.json')
    writeFileSync(file, '{"message":"from a file"}')
    expect(cli(location, ['invoke', 'echo', '--input', `@${file}`]).json()).toMatchObject({ data: { message: 'from a file' } })
    const invalid = cli(location, ['invoke', 'echo', '--input', '{"message":""}'])
    expect(invalid.code).toBe(1)
    expect(invalid.json()).toMatchObject({ ok: false, error: { code: 'invalid_input' } })
    const notJson = cli(location, ['invoke', 'echo', '--input', '{message:'])
    expect(notJson.code).toBe(1)
    expect(notJson.stderr).toMatch(/^skillplane: --input is not valid JSON: /)
    oneLine(notJson)
    const audit = cli(location, ['audit', '--json', '--skill', 'echo']).json()
    expect(audit.items.map((e: { status: string }) => e.status)).toEqual(['error', 'ok', 'ok'])
    expect(audit.items[0].caller).toMatchObject({ id: 'local', role: 'admin', name: expect.stringMatching(/^local:/) })
    const table = cli(location, ['audit', '--status', 'error'])
    expect(table.stdout).toContain('invalid_input')
    const badFilter = cli(location, ['audit', '--from', 'last tuesday'])
    expect(badFilter.code).toBe(1)
    expect(badFilter.stderr).toContain('invalid audit filter: from: must be an ISO-8601 date or date-time')
  })

  it('creates, lists and revokes keys, showing each key once and storing only its hash', async () => {
    const location = await database.create()
    cli(location, ['sync'])
    const created = cli(location, ['keys', 'create', '--name', 'ci', '--role', 'operator', '--json']).json()
    expect(created).toMatchObject({ name: 'ci', role: 'operator', user: { name: 'ci' }, key: expect.stringMatching(/^sp_[A-Za-z0-9_-]{43}$/) })
    const agentKey = cli(location, ['keys', 'create', '--name', 'bot', '--agent', 'Helper'])
    expect(agentKey.stdout).toContain('for agent helper')
    const listed = cli(location, ['keys', 'list', '--json'])
    expect(listed.stdout).not.toContain(created.key)
    expect(listed.json().map((k: { name: string; role: string }) => `${k.name}:${k.role}`)).toEqual(['ci:operator', 'bot:agent'])
    expect(cli(location, ['keys', 'revoke', 'ci']).stdout).toBe('revoked 1 key\n')
    const again = cli(location, ['keys', 'revoke', 'ci'])
    expect(again.code).toBe(1)
    expect(again.stderr).toBe('skillplane: no active key with id or name "ci"\n')
    const badRole = cli(location, ['keys', 'create', '--name', 'x', '--role', 'root'])
    expect(badRole.code).toBe(1)
    expect(badRole.stderr).toContain('Allowed choices are viewer, operator, admin')
    const ghost = cli(location, ['keys', 'create', '--name', 'x', '--agent', 'ghost'])
    expect(ghost.stderr).toBe('skillplane: unknown agent "ghost": declare it in the config and run skillplane sync\n')
    expect(cli(location, ['keys', 'create', '--name', 'x']).stderr).toContain('give --role viewer|operator|admin, --user NAME')
  })

  it('reports a config that does not load in one line naming the file', async () => {
    const location = await database.create()
    const dir = tempDir()
    const broken = join(dir, 'broken.config.ts')
    writeFileSync(broken, 'export default { skills: [ }')
    const run = cli(location, ['skills', 'list'], broken)
    expect(run.code).toBe(1)
    expect(run.stderr).toMatch(new RegExp(`^skillplane: cannot load config ${broken}:1:28: ParseError: `))
    oneLine(run)
    // A syntax error in a file the config imports (a skill) names that file, its line and column.
    const skill = join(dir, 'broken-skill.ts')
    writeFileSync(skill, "export const greet = {\n  key: 'greet',,\n}\n")
    const importer = join(dir, 'importer.config.ts')
    writeFileSync(importer, "import { greet } from './broken-skill.js'\nexport default { skills: [greet] }\n")
    const inSkill = cli(location, ['skills', 'list'], importer)
    expect(inSkill.code).toBe(1)
    expect(inSkill.stderr).toMatch(new RegExp(`^skillplane: cannot load config ${importer}: ${skill}:2:16: ParseError: `))
    oneLine(inSkill)
    const wrongShape = join(dir, 'shape.config.ts')
    writeFileSync(wrongShape, 'export default { skills: [{ key: "x" }] }')
    expect(cli(location, ['skills', 'list'], wrongShape).stderr).toBe(`skillplane: config ${wrongShape}: skills[0]: not a skill made with defineSkill()\n`)
    const missing = cli(location, ['skills', 'list'], join(dir, 'missing.ts'))
    expect(missing.stderr).toBe(`skillplane: config file not found: ${join(dir, 'missing.ts')}\n`)
    // A log level pino doesn't know is named as ours, not as the logging library's message.
    const loud = spawnSync(process.execPath, [MAIN, '--data-dir', location.dataDir, '--config', CONFIG, 'skills', 'list'], {
      encoding: 'utf8',
      env: { ...process.env, SKILLPLANE_LOG_LEVEL: 'loud' },
    })
    expect({ code: loud.status, stderr: loud.stderr }).toEqual({
      code: 1,
      stderr: 'skillplane: SKILLPLANE_LOG_LEVEL "loud" is not a log level: use fatal, error, warn, info, debug, trace, silent\n',
    })
  })

  it('serves HTTP with a printed admin key, and a call racing SIGTERM ends interrupted', async () => {
    const location = await database.create()
    const server = serve(location)
    const { url, key } = await server.ready
    const auth = { authorization: `Bearer ${key}` }
    const skills = await getJson(`${url}/api/skills`, auth)
    expect(skills.skills.map((s: { key: string }) => s.key)).toEqual([
      'discover_skills',
      'echo',
      'memory_delete',
      'memory_get',
      'memory_set',
      'recall_learnings',
      'set_flag',
      'slow',
    ])
    const racing = fetch(`${url}/api/skills/slow/invoke`, { method: 'POST', headers: auth, body: JSON.stringify({ input: { ms: 30_000 } }) })
    await waitFor(async () => (await getJson(`${url}/api/audit?status=running`, auth)).items.length === 1)
    server.child.kill('SIGTERM')
    const response = await racing
    expect(response.status).toBe(503)
    expect(await response.json()).toMatchObject({ ok: false, error: { code: 'unavailable', message: expect.stringContaining('shutting down') } })
    expect(await server.exited).toBe(0)
    const rows = cli(location, ['audit', '--json', '--skill', 'slow']).json().items
    expect(rows).toEqual([expect.objectContaining({ status: 'interrupted' })])
    // A second serve on the same data dir does not print a new admin key.
    const again = serve(location)
    await waitFor(async () => again.output().includes('api '))
    expect(again.output()).not.toContain('admin key')
    again.child.kill('SIGTERM')
    await again.exited
  })

  it('marks a call cut off by a crash (SIGKILL) as interrupted when the next manager starts', async () => {
    const location = await database.create()
    const server = serve(location)
    const { url, key } = await server.ready
    const auth = { authorization: `Bearer ${key}` }
    void fetch(`${url}/api/skills/slow/invoke`, { method: 'POST', headers: auth, body: JSON.stringify({ input: { ms: 60_000 } }) }).catch(() => {})
    await waitFor(async () => (await getJson(`${url}/api/audit?status=running`, auth)).items.length === 1)
    server.child.kill('SIGKILL')
    await server.exited
    // The next manager on this host sees the dead process at once, though its heartbeat is fresh.
    const rows = cli(location, ['audit', '--json', '--skill', 'slow']).json().items
    expect(rows).toEqual([expect.objectContaining({ status: 'interrupted', error: expect.objectContaining({ code: 'unavailable' }) })])
  })

  it('fails with one line when the port is taken, and keeps the first admin key for the next start', async () => {
    const location = await database.create()
    const blocker = createServer().listen(0, '127.0.0.1')
    await new Promise((r) => blocker.once('listening', r))
    const port = (blocker.address() as { port: number }).port
    const run = cli(location, ['serve', '--port', String(port)])
    blocker.close()
    expect(run.code).toBe(1)
    expect(run.stderr).toMatch(
      /^skillplane: port \d+ on 127\.0\.0\.1 is in use \(another skillplane serve\?\): stop that process or pick another with --port\n$/,
    )
    const server = serve(location)
    expect((await server.ready).key).toMatch(/^sp_/)
    server.child.kill('SIGTERM')
    await server.exited
  })

  it('refuses to approve an expired request, and a resumption of it', async () => {
    const location = await database.create()
    cli(location, ['sync'])
    expect(cli(location, ['policies', 'set', '--skill', 'set_flag', '--level', 'role', '--subject', 'admin', '--decision', 'ASK']).code).toBe(0)
    const asked = cli(location, ['invoke', 'set_flag', '--input', '{"on":true}'])
    expect(asked.code).toBe(1)
    const id = asked.json().error.details.approvalId
    await new Promise((r) => setTimeout(r, 1_600))
    const approve = cli(location, ['approvals', 'approve', id])
    expect(approve.code).toBe(1)
    expect(approve.stderr).toMatch(/^skillplane: approval request \S+ is expired since .*: it can't be decided any more\n$/)
    expect(cli(location, ['invoke', 'set_flag', '--input', '{"on":true}', '--approval-id', id]).json()).toMatchObject({ error: { code: 'approval_expired' } })
    expect(
      cli(location, ['approvals', 'list', '--status', 'expired', '--json'])
        .json()
        .items.map((a: { id: string }) => a.id),
    ).toEqual([id])
  })

  it('fails fast with one line when the database cannot be reached', async () => {
    const run = cli({ dataDir: tempDir(), databaseUrl: 'postgres://u:pw@127.0.0.1:1/db' }, ['skills', 'list'])
    expect(run.code).toBe(1)
    expect(run.stderr).toMatch(/^skillplane: cannot connect to the database at postgres:\/\/u:\*\*\*@127\.0\.0\.1:1\/db: /)
    oneLine(run)
  })
})

describe('skillplane CLI without a config', () => {
  it('says where it looked and creates nothing in a folder without one; opens existing state with a warning', () => {
    const folder = tempDir('skillplane-no-config-')
    const env: NodeJS.ProcessEnv = { ...process.env, SKILLPLANE_LOG_LEVEL: 'warn' }
    delete env.SKILLPLANE_DATABASE_URL
    const run = (args: string[]) => spawnSync(process.execPath, [MAIN, ...args], { cwd: folder, encoding: 'utf8', env, timeout: TEST_TIMEOUT_MS })
    const lost = run(['skills', 'list'])
    expect(lost.status).toBe(1)
    expect(lost.stderr).toBe(
      `skillplane: no config found (looked for skillplane.config.ts, skillplane.config.mts, skillplane.config.js, skillplane.config.mjs in ${realpathSync(folder)}): run skillplane in your project's folder, or pass --config FILE\n`,
    )
    expect(existsSync(join(folder, '.skillplane'))).toBe(false)
    // A data dir that exists (made by an earlier run with a config) stays readable without one.
    mkdirSync(join(folder, '.skillplane'))
    const opened = run(['audit'])
    expect(opened.status).toBe(0)
    expect(opened.stderr).toContain(`skillplane: no config found (looked for skillplane.config.ts, `)
    expect(opened.stderr).toContain(`; opening ${join(realpathSync(folder), '.skillplane')} without one`)
    expect(opened.stdout).toBe('no calls\n')
  })
})

async function getJson(url: string, headers: Record<string, string>): Promise<any> {
  return (await fetch(url, { headers })).json()
}
