import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { databases, tempDir, waitFor } from '../../test-support/databases.js'
import { TEST_TIMEOUT_MS } from '../../test-support/test-timeout.js'

// The README's approval walk-through, on the demo config, through the real binary and HTTP.
const ROOT = join(import.meta.dirname, '../../..')
const MAIN = join(ROOT, 'dist/surfaces/cli/main.js')
const CONFIG = join(ROOT, 'examples/skillplane.config.ts')
const SOP = join(ROOT, 'examples/sops/purge-old-notes.md')

type Location = { dataDir: string; databaseUrl?: string }

function cli(location: Location, args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, SKILLPLANE_LOG_LEVEL: 'warn' }
  const dbArgs = location.databaseUrl ? ['--database-url', location.databaseUrl] : []
  const result = spawnSync(process.execPath, [MAIN, '--data-dir', location.dataDir, '--config', CONFIG, ...dbArgs, ...args], {
    encoding: 'utf8',
    env,
    // A synchronous spawn blocks the test's own timeout, so it carries the same one.
    timeout: TEST_TIMEOUT_MS,
  })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr, json: () => JSON.parse(result.stdout) }
}

const children = new Set<ChildProcess>()
afterEach(() => {
  for (const child of children) child.kill('SIGKILL')
  children.clear()
})

async function serve(location: Location): Promise<{ url: string; key: string; child: ChildProcess }> {
  const dbArgs = location.databaseUrl ? ['--database-url', location.databaseUrl] : []
  const child = spawn(process.execPath, [MAIN, 'serve', '--port', '0', '--data-dir', location.dataDir, '--config', CONFIG, ...dbArgs], {
    env: { ...process.env, SKILLPLANE_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.add(child)
  let out = ''
  child.stdout!.on('data', (chunk) => (out += chunk))
  await waitFor(() => /admin key \(shown once; store it now\): sp_/.test(out) || child.exitCode !== null)
  if (child.exitCode !== null) throw new Error(`serve exited: ${out}`)
  return { url: /api\s+(http:\/\/\S+)\/api\/skills/.exec(out)![1]!, key: /: (sp_\S+)/.exec(out)![1]!, child }
}

describe.each(databases)('approvals from the CLI on $name', (database) => {
  it('walks a mutating and a dangerous call from 202 to approval to a single run', async () => {
    const location = await database.create()
    const server = await serve(location)
    const agentKey = cli(location, ['keys', 'create', '--name', 'scribe-bot', '--agent', 'Notes Assistant', '--json']).json().key as string
    const bobKey = cli(location, ['keys', 'create', '--name', 'bob', '--role', 'admin', '--json']).json().key as string
    const invoke = async (key: string, skill: string, body: object) => {
      const response = await fetch(`${server.url}/api/skills/${skill}/invoke`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      return { status: response.status, body: (await response.json()) as any }
    }

    // Mutating, asked by an agent: one human approval from the CLI, then one run.
    const asked = await invoke(agentKey, 'notes_add', { input: { title: 'Rotate keys', tags: ['ops'] } })
    expect(asked).toMatchObject({ status: 202, body: { error: { code: 'approval_required' } } })
    const id = asked.body.error.details.approvalId
    expect(
      cli(location, ['approvals', 'list', '--status', 'pending', '--json'])
        .json()
        .items.map((a: { id: string }) => a.id),
    ).toEqual([id])
    const approved = cli(location, ['approvals', 'approve', id, '--comment', 'fine by me'])
    expect(approved.code).toBe(0)
    expect(approved.stdout).toContain(`${id}: notes_add (mutating) is approved`)
    expect(await invoke(agentKey, 'notes_add', { input: { title: 'Rotate keys', tags: ['ops'] }, approvalId: id })).toMatchObject({
      status: 200,
      body: { ok: true, data: { title: 'Rotate keys' } },
    })
    expect(await invoke(agentKey, 'notes_add', { input: { title: 'Rotate keys', tags: ['ops'] }, approvalId: id })).toMatchObject({ status: 403 })
    const twice = cli(location, ['approvals', 'approve', id])
    expect(twice.code).toBe(1)
    expect(twice.stderr).toMatch(/^skillplane: approval request \S+ is executed since .*: it can't be decided any more\n$/)

    // Waiting over HTTP while another process decides (longer than the test may take: its timeout is the deadline).
    const waiting = invoke(agentKey, 'notes_add', { input: { title: 'Waited for' }, wait: 600 })
    let waitingId = ''
    await waitFor(() => {
      waitingId = cli(location, ['approvals', 'list', '--status', 'pending', '--json']).json().items[0]?.id ?? ''
      return waitingId !== ''
    })
    cli(location, ['approvals', 'approve', waitingId])
    expect(await waiting).toMatchObject({ status: 200, body: { ok: true, data: { title: 'Waited for' } } })

    // Dangerous: a registered, signed SOP and two distinct admins.
    expect(cli(location, ['sop', 'register', SOP]).stdout).toContain(
      'registered SOP purge-old-notes "Purge notes older than a month" for notes_purge (signed by "ops-lead")',
    )
    const purge = await invoke(agentKey, 'notes_purge', { input: { olderThanDays: 30 } })
    expect(purge).toMatchObject({ status: 202, body: { error: { details: { approvalsRequired: 2, sopRequired: true } } } })
    const purgeId = purge.body.error.details.approvalId
    const noSop = cli(location, ['approvals', 'approve', purgeId])
    expect(noSop.stderr).toContain('must cite a signed procedure')
    expect(cli(location, ['approvals', 'approve', purgeId, '--sop', 'purge-old-notes']).stdout).toContain('is pending')
    const second = await fetch(`${server.url}/api/approvals/${purgeId}/approve`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bobKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ sopId: 'purge-old-notes', comment: 'backup checked' }),
    })
    expect(await second.json()).toMatchObject({ status: 'approved' })
    expect(await invoke(agentKey, 'notes_purge', { input: { olderThanDays: 30 }, approvalId: purgeId })).toMatchObject({
      status: 200,
      body: { ok: true, data: { deleted: 0 } },
    })
    const shown = cli(location, ['approvals', 'show', purgeId])
    expect(shown.stdout).toContain('needs 2 approvals by admin, each citing a signed procedure')
    expect(shown.stdout).toContain('approve by bob (admin)')
    expect(shown.stdout).toMatch(/approval\.executed\s+by scribe-bot\s+call \S+/)

    // Outside the SOP (a purge of recent notes) can't be approved.
    const recent = await invoke(agentKey, 'notes_purge', { input: { olderThanDays: 1 } })
    const recentTry = cli(location, ['approvals', 'approve', recent.body.error.details.approvalId, '--sop', 'purge-old-notes'])
    expect(recentTry.stderr).toMatch(/outside SOP "purge-old-notes" at \/olderThanDays/)

    server.child.kill('SIGTERM')
  })

  it('lists, validates and exports the demo instruction skills', async () => {
    const location = await database.create()
    cli(location, ['sync'])
    const listed = cli(location, ['skills', 'list', '--source', 'agent-skill', '--json']).json()
    expect(listed.map((s: { key: string }) => s.key)).toEqual([
      'activate_skill',
      'list_skills',
      'notebook-housekeeping',
      'read_skill_resource',
      'rotate-backup-keys',
      'run_skill_script',
      'write-release-notes',
    ])
    expect(cli(location, ['skills', 'validate', join(ROOT, 'examples/agent-skills')]).stdout).toBe('3 skills checked: 0 errors, 0 warnings\n')
    const out = join(tempDir(), 'export')
    const first = cli(location, ['skills', 'export', '--agent', 'notes', '--out', out])
    expect(first.stdout).toContain('+ notebook-housekeeping/SKILL.md')
    expect(readFileSync(join(out, 'notebook-housekeeping/SKILL.md'), 'utf8')).toContain('# Notebook housekeeping for Notes Assistant')
    expect(cli(location, ['skills', 'export', '--agent', 'notes', '--out', out]).stdout).toBe(`${out}: unchanged\n`)
    cli(location, ['policies', 'set', '--skill', 'notes_purge', '--level', 'agent', '--subject', 'notes', '--decision', 'DENY'])
    expect(cli(location, ['skills', 'export', '--agent', 'notes', '--out', out]).stdout).toContain('+ notebook-housekeeping/SKILL.md')
    expect(readFileSync(join(out, 'notebook-housekeeping/SKILL.md'), 'utf8')).toContain(
      'These actions are unavailable and should not be attempted: notes_purge.',
    )
    expect(cli(location, ['skills', 'export', '--agent', 'nobody', '--out', out]).stderr).toBe('skillplane: unknown agent "nobody"\n')
  })

  it('refuses tampered or foreign SOPs and self-approval, and manages policies', async () => {
    const location = await database.create()
    const dir = tempDir()
    const edited = join(dir, 'edited.md')
    writeFileSync(edited, readFileSync(SOP, 'utf8').replace('minimum: 30', 'minimum: 1'))
    writeFileSync(`${edited}.sig`, readFileSync(`${SOP}.sig`))
    const tampered = cli(location, ['sop', 'register', edited])
    expect(tampered.code).toBe(1)
    expect(tampered.stderr).toContain('the document was changed after it was signed')

    const key = join(dir, 'mine.key')
    expect(cli(location, ['sop', 'keygen', '--private', key, '--public', join(dir, 'mine.pub')]).code).toBe(0)
    expect(cli(location, ['sop', 'keygen', '--private', key, '--public', join(dir, 'other.pub')]).stderr).toBe(
      `skillplane: ${key} exists already: keygen never overwrites a key\n`,
    )
    const own = join(dir, 'own.md')
    writeFileSync(own, readFileSync(SOP, 'utf8'))
    expect(cli(location, ['sop', 'sign', own, '--key', key]).stdout).toContain('signed purge-old-notes')
    expect(cli(location, ['sop', 'verify', own]).stderr).toContain('which is not registered in the config (sopKeys)')
    expect(cli(location, ['sop', 'verify', SOP]).stdout).toContain('valid, signed by "ops-lead"')
    expect(cli(location, ['sop', 'sign', join(dir, 'missing.md'), '--key', key]).stderr).toBe(`skillplane: cannot read ${join(dir, 'missing.md')}: ENOENT\n`)

    // The CLI acts as one local admin: it can't approve what it asked for itself.
    const asked = cli(location, ['invoke', 'notes_purge', '--input', '{"olderThanDays":40}'])
    expect(asked.code).toBe(1)
    const id = asked.json().error.details.approvalId
    cli(location, ['sop', 'register', SOP])
    expect(cli(location, ['approvals', 'approve', id, '--sop', 'purge-old-notes']).stderr).toBe('skillplane: the requester cannot approve their own request\n')

    const set = cli(location, ['policies', 'set', '--skill', 'notes_add', '--level', 'role', '--subject', 'admin', '--decision', 'ASK', '--json'])
    expect(set.code).toBe(0)
    const policyId = set.json().id
    expect(cli(location, ['invoke', 'notes_add', '--input', '{"title":"x"}']).json()).toMatchObject({ error: { code: 'approval_required' } })
    expect(cli(location, ['policies', 'list']).stdout).toMatch(/notes_add\s+role\s+admin\s+ASK/)
    expect(cli(location, ['policies', 'set', '--skill', 'notes_add', '--level', 'planet', '--decision', 'ASK']).stderr).toContain(
      'Allowed choices are global, agent, role, user',
    )
    expect(cli(location, ['policies', 'clear', policyId]).stdout).toContain(`cleared policy ${policyId}`)
    expect(cli(location, ['invoke', 'notes_add', '--input', '{"title":"x"}']).json()).toMatchObject({ ok: true })
  })
})
