import { spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { databases, tempDir } from '../../test-support/databases.js'
import { admin, openTestPlane } from '../../test-support/fixtures.js'
import type { Skillplane } from '../../agents/index.js'
import { loadPacks } from './load-packs.js'
import { unknownProvider } from '../../config/index.js'
import { startHttpServer } from '../../surfaces/http/start-http-server.js'

const MAIN = join(import.meta.dirname, '../../../dist/surfaces/cli/main.js')

/** A pack folder under root: skill.json plus an executable script. */
function pack(root: string, name: string, script: string, manifest: Record<string, unknown> = {}): string {
  const dir = join(root, name)
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'run.sh'), `#!/bin/sh\n${script}\n`)
  chmodSync(join(dir, 'run.sh'), 0o755)
  writeFileSync(join(dir, 'skill.json'), JSON.stringify({ name, description: `The ${name} pack`, entry: 'run.sh', class: 'safe', ...manifest }))
  return dir
}

describe.each(databases)('skill packs on $name', (database) => {
  const planes: Skillplane[] = []
  afterEach(async () => {
    await Promise.all(planes.splice(0).map((p) => p.close()))
  })

  it('runs packs with JSON in and out, an allowlisted environment, and reports every failure mode', async () => {
    const root = tempDir('skillplane-packs-')
    const marker = join(tempDir(), 'grandchild')
    pack(root, 'echo_pack', '/bin/cat', { schema: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } } })
    pack(root, 'env_pack', 'printf \'{"allowed":"%s","forbidden":"%s","home":"%s"}\' "$ALLOWED" "${FORBIDDEN:-unset}" "${HOME:-unset}"', {
      env_allow: ['ALLOWED'],
    })
    pack(root, 'crash_pack', 'echo "first line" >&2\necho "the real reason" >&2\nexit 7')
    pack(root, 'flood_pack', '/usr/bin/head -c 17000000 /dev/zero')
    pack(root, 'text_pack', 'echo "this is not json"\necho "a warning" >&2')
    pack(root, 'slow_pack', `(/bin/sleep 1.5; echo alive > ${marker}) &\n/bin/sleep 30`, { timeout_seconds: 0.5 })
    pack(root, 'typed_pack', 'echo \'{"count":"many"}\'', { output_schema: { type: 'object', properties: { count: { type: 'integer' } } } })
    process.env.ALLOWED = 'yes'
    process.env.FORBIDDEN = 'secret'
    const plane = await openTestPlane(database, { packDirs: [root] })
    planes.push(plane)
    const call = (key: string, input: object = {}) => plane.invoke(key, input, { caller: admin })

    expect(await call('echo_pack', { n: 3 })).toMatchObject({ ok: true, data: { n: 3 } })
    expect(await call('echo_pack', { n: 'x' })).toMatchObject({ ok: false, error: { code: 'invalid_input', message: expect.stringContaining('/n') } })
    expect(await call('env_pack')).toMatchObject({ ok: true, data: { allowed: 'yes', forbidden: 'unset', home: 'unset' } })
    expect(await call('crash_pack')).toMatchObject({
      ok: false,
      error: { code: 'executor_error', message: expect.stringContaining('exited with 7: first line\nthe real reason') },
    })
    expect(await call('flood_pack')).toMatchObject({
      ok: false,
      error: { code: 'executor_error', message: expect.stringContaining('more than 16777216 bytes to stdout') },
    })
    expect(await call('text_pack')).toMatchObject({
      ok: false,
      error: { code: 'executor_error', message: expect.stringContaining('stdout is not one JSON value (it starts: "this is not json"); stderr: a warning') },
    })
    expect(await call('typed_pack')).toMatchObject({ ok: false, error: { code: 'invalid_output' } })
    expect(await call('slow_pack')).toMatchObject({ ok: false, error: { code: 'timeout' } })
    // The whole group died at the 0.5 s deadline: the grandchild, due at 1.5 s, never writes.
    await new Promise((r) => setTimeout(r, 1_500))
    expect(existsSync(marker)).toBe(false)
    const row = (await plane.audit.query({ skill: 'echo_pack', status: 'ok', limit: 1 })).items[0]
    expect(row).toMatchObject({ skill: 'echo_pack', status: 'ok' })
    expect(plane.skills.get('echo_pack')).toMatchObject({ source: 'pack', origin: join(root, 'echo_pack', 'skill.json'), category: 'packs' })
  })
})

describe.each(databases)('reloading packs on $name', (database) => {
  it('picks up added, changed and removed packs without a restart, and sync reflects them', async () => {
    const root = tempDir('skillplane-reload-')
    pack(root, 'first_pack', 'echo \'{"v":1}\'')
    const plane = await openTestPlane(database, { packDirs: [root] })
    const server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    try {
      const adminKey = (await plane.people.keys.create({ name: 'root', role: 'admin' }, plane.now())).key
      const viewerKey = (await plane.people.keys.create({ name: 'v', role: 'viewer' }, plane.now())).key
      const reload = async (key = adminKey) => {
        const response = await fetch(`${server.url}/api/sources/reload`, { method: 'POST', headers: { authorization: `Bearer ${key}` } })
        return { status: response.status, body: (await response.json()) as any }
      }
      pack(root, 'second_pack', 'echo \'{"v":2}\'')
      const added = await reload()
      expect(added).toMatchObject({ status: 200, body: { added: ['second_pack'], removed: [], sources: { pack: { skills: ['first_pack', 'second_pack'] } } } })
      expect(added.body.sync.changes.map((c: { message: string }) => c.message)).toContain('+ skill second_pack (pack, safe)')
      expect(await plane.invoke('second_pack', {}, { caller: admin })).toMatchObject({ ok: true, data: { v: 2 } })

      writeFileSync(join(root, 'second_pack', 'run.sh'), '#!/bin/sh\necho \'{"v":3}\'\n')
      writeFileSync(join(root, 'second_pack', 'skill.json'), JSON.stringify({ name: 'second_pack', description: 'Changed', entry: 'run.sh', class: 'safe' }))
      const changed = await reload()
      expect(changed.body.sync.changes.map((c: { message: string }) => c.message)).toEqual(['~ skill second_pack: code description changed'])
      expect(await plane.invoke('second_pack', {}, { caller: admin })).toMatchObject({ ok: true, data: { v: 3 } })

      rmSync(join(root, 'first_pack'), { recursive: true })
      const removed = await reload()
      expect(removed.body).toMatchObject({ added: [], removed: ['first_pack'], sources: { pack: { skills: ['second_pack'] } } })
      expect(await plane.invoke('first_pack', {}, { caller: admin })).toMatchObject({ ok: false, error: { code: 'not_found' } })
      expect(await reload(viewerKey)).toMatchObject({ status: 403 })
    } finally {
      await server.close()
      await plane.close()
    }
  })
})

describe.each(databases)('reloading to nothing on $name', (database) => {
  it('refuses, with 409, a reload that would orphan the whole catalog', async () => {
    const root = tempDir('skillplane-reload-empty-')
    pack(root, 'only_pack', 'echo \'{"v":1}\'')
    const plane = await openTestPlane(database, { skills: [], agents: [], packDirs: [root] })
    const server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    try {
      const adminKey = (await plane.people.keys.create({ name: 'root', role: 'admin' }, plane.now())).key
      rmSync(join(root, 'only_pack'), { recursive: true })
      const response = await fetch(`${server.url}/api/sources/reload`, { method: 'POST', headers: { authorization: `Bearer ${adminKey}` } })
      expect(response.status).toBe(409)
      expect(await response.json()).toMatchObject({
        ok: false,
        error: { code: 'conflict', message: expect.stringContaining('the config has no skills, and syncing it would orphan all 1 skill of the catalog') },
      })
      expect(plane.skills.row('only_pack')).toMatchObject({ present: 1 })
    } finally {
      await server.close()
      await plane.close()
    }
  })
})

describe.each(databases)('pack boundaries on $name', (database) => {
  it('refuses a pack swapped after loading, keeps working packs when a folder breaks, and counts only stdout', async () => {
    const root = tempDir('skillplane-packedge-')
    const outside = tempDir('skillplane-packout-')
    pack(root, 'swap_pack', 'echo \'{"where":"inside"}\'')
    pack(outside, 'swap_pack', 'echo \'{"where":"OUTSIDE"}\'')
    pack(root, 'noisy_pack', '/usr/bin/head -c 17000000 /dev/zero >&2\necho \'{"ok":true}\'')
    const plane = await openTestPlane(database, { packDirs: [root] })
    try {
      expect(await plane.invoke('noisy_pack', {}, { caller: admin })).toMatchObject({ ok: true, data: { ok: true } })
      renameSync(join(root, 'swap_pack'), join(root, 'swap_old'))
      symlinkSync(join(outside, 'swap_pack'), join(root, 'swap_pack'))
      expect(await plane.invoke('swap_pack', {}, { caller: admin })).toMatchObject({
        ok: false,
        error: { code: 'unavailable', message: expect.stringContaining('changed on disk') },
      })
      mkdirSync(join(root, 'broken', 'skill.json'), { recursive: true })
      const result = await plane.sources.reload()
      expect(result.sources.pack.skills).toContain('noisy_pack')
      expect(result.sources.pack.findings).toContainEqual(
        expect.objectContaining({ file: join(root, 'broken', 'skill.json'), message: expect.stringContaining("can't read") }),
      )
    } finally {
      await plane.close()
    }
  })
})

describe('loading packs', () => {
  it('skips bad manifests and unsafe entries with a finding naming the file and field', () => {
    const root = tempDir('skillplane-badpacks-')
    const outside = tempDir('skillplane-outside-')
    writeFileSync(join(outside, 'evil.sh'), '#!/bin/sh\necho {}\n')
    chmodSync(join(outside, 'evil.sh'), 0o755)
    pack(root, 'good_one', 'echo {}')
    pack(root, 'no_class', 'echo {}', { class: undefined })
    pack(root, 'typo_class', 'echo {}', { class: undefined, clas: 'dangerous' })
    const write = (dir: string, manifest: unknown) => {
      mkdirSync(join(root, dir), { recursive: true })
      writeFileSync(join(root, dir, 'skill.json'), typeof manifest === 'string' ? manifest : JSON.stringify(manifest))
    }
    write('broken', '{ "name": ')
    write('nameless', { description: 'x', entry: 'run.sh' })
    write('bad_fields', { name: 'Bad-Name', description: 'x', entry: 'run.sh', class: 'risky', timeout_seconds: -1, extra: true, tag: ['x'] })
    write('missing_entry', { name: 'missing_entry', description: 'x', entry: 'nope.sh', class: 'safe' })
    pack(root, 'not_exec', 'echo {}')
    chmodSync(join(root, 'not_exec', 'run.sh'), 0o644)
    write('escapes', { name: 'escapes', description: 'x', entry: 'evil.sh', class: 'safe' })
    symlinkSync(join(outside, 'evil.sh'), join(root, 'escapes', 'evil.sh'))
    pack(root, 'twin_a', 'echo {}', { name: 'twin' })
    pack(root, 'twin_b', 'echo {}', { name: 'twin' })
    pack(root, 'taken', 'echo {}', { name: 'echo' })
    pack(root, 'greedy', 'echo {}', { env_allow: ['HOME', 'SKILLPLANE_APPROVAL_SECRET'] })

    const { packs, findings } = loadPacks([root], (name) => (name === 'echo' ? 'skill "echo" (code)' : undefined))
    expect(packs.map((p) => p.manifest.name).sort()).toEqual(['good_one', 'twin'])
    const lines = findings.map((f) => `${f.file.slice(root.length + 1)}: ${f.severity}: ${f.message}`).sort()
    expect(lines).toEqual([
      'bad_fields/skill.json: error: field "name": must be a skill key: lowercase letters, digits and single underscores, starting with a letter, at most 64 characters; ' +
        'field "timeout_seconds": Too small: expected number to be >0; ' +
        'field "class": must be "safe" (reads only), "mutating" (changes state) or "dangerous" (destructive); ' +
        'unknown field "extra"; unknown field "tag" (did you mean "tags"?); skipped',
      expect.stringMatching(/^broken\/skill\.json: error: not valid JSON: .*; skipped$/),
      expect.stringMatching(/^escapes\/skill\.json: error: field "entry": evil\.sh resolves outside the pack root .*; skipped$/),
      'greedy/skill.json: error: field "env_allow": SKILLPLANE_APPROVAL_SECRET belong to skillplane and are never passed to packs; skipped',
      'missing_entry/skill.json: error: field "entry": nope.sh does not exist; skipped',
      expect.stringMatching(/^nameless\/skill\.json: error: field "name": .*; skipped$/),
      'no_class/skill.json: error: field "class": missing: declare "safe" (reads only), "mutating" (changes state) or "dangerous" (destructive); skipped',
      'not_exec/skill.json: error: field "entry": run.sh is not executable (chmod +x); skipped',
      'taken/skill.json: error: name "echo" is taken by skill "echo" (code); skipped',
      expect.stringMatching(/^twin_b\/skill\.json: error: name "twin" is taken by .*twin_a\/skill\.json; skipped$/),
      'typo_class/skill.json: error: field "class": missing: declare "safe" (reads only), "mutating" (changes state) or "dangerous" (destructive); ' +
        'unknown field "clas" (did you mean "class"?); skipped',
    ])
  })

  it("checks a pack's oauth: a configured provider, the variable it fills (default <PROVIDER>_TOKEN), not one a secret fills", () => {
    const root = tempDir('skillplane-oauthpacks-')
    pack(root, 'default_env', 'echo {}', { oauth: { provider: 'github', scopes: ['repo'] } })
    pack(root, 'own_env', 'echo {}', { oauth: { provider: 'github', account: 'service', env: 'GH_TOKEN' } })
    pack(root, 'typo_provider', 'echo {}', { oauth: { provider: 'githb' } })
    pack(root, 'clash', 'echo {}', { secrets: ['GITHUB_TOKEN'], oauth: { provider: 'github' } })
    pack(root, 'bad_oauth', 'echo {}', { oauth: { provider: 'GitHub', scope: ['repo'], account: 'team', env: 'not a name' } })
    const { packs, findings } = loadPacks([root], undefined, (provider) => unknownProvider(provider, ['github']))
    expect(Object.fromEntries(packs.map((p) => [p.manifest.name, p.manifest.oauth]))).toEqual({
      default_env: { provider: 'github', scopes: ['repo'], env: 'GITHUB_TOKEN' },
      own_env: { provider: 'github', account: 'service', env: 'GH_TOKEN' },
    })
    expect(findings.map((f) => `${f.file.slice(root.length + 1)}: ${f.message}`).sort()).toEqual([
      'bad_oauth/skill.json: field "oauth.provider": must name a provider of the config\'s oauth.providers (lowercase letters, digits and single underscores, starting with a letter); ' +
        'field "oauth.account": must be person or service; ' +
        'field "oauth.env": must be an environment variable name (letters, digits and _, not starting with a digit); ' +
        'unknown field "scope" (did you mean "scopes"?); skipped',
      'clash/skill.json: field "oauth.env": names a variable a secret of the pack already fills: give oauth another env; skipped',
      'typo_provider/skill.json: field "oauth.provider": no OAuth provider "githb" in the config\'s oauth.providers (did you mean "github"?); skipped',
    ])
  })

  it('scaffolds a working pack and tests it through the pipeline from the CLI', () => {
    const dir = tempDir('skillplane-newpack-')
    const data = tempDir('skillplane-newpack-data-')
    const run = (args: string[]) => spawnSync(process.execPath, [MAIN, '--data-dir', data, ...args], { encoding: 'utf8', cwd: dir })
    expect(run(['packs', 'new', 'hello_pack', '--dir', dir]).stdout).toContain(`created ${join(dir, 'hello_pack')}: skill.json and run.mjs`)
    const tested = run(['packs', 'test', join(dir, 'hello_pack'), '--input', '{"name":"Ada"}'])
    expect(tested.status).toBe(0)
    expect(JSON.parse(tested.stdout)).toMatchObject({ ok: true, data: { greeting: 'Hello, Ada!' } })
    const invalid = run(['packs', 'test', join(dir, 'hello_pack'), '--input', '{}'])
    expect(invalid.status).toBe(1)
    expect(JSON.parse(invalid.stdout)).toMatchObject({ ok: false, error: { code: 'invalid_input' } })
    expect(run(['packs', 'new', 'Bad-Name']).stderr).toBe(
      'skillplane: pack names are lower_snake skill keys (lowercase letters, digits and single underscores, starting with a letter, at most 64 characters), got "Bad-Name"\n',
    )
    expect(run(['packs', 'test', dir]).stderr).toBe(`skillplane: no skill.json in ${dir}\n`)
  })

  it('refuses from the CLI a pack whose skill.json misspells class, naming the file and the field meant', () => {
    const dir = tempDir('skillplane-typopack-')
    const data = tempDir('skillplane-typopack-data-')
    const run = (args: string[]) => spawnSync(process.execPath, [MAIN, '--data-dir', data, ...args], { encoding: 'utf8', cwd: dir })
    expect(run(['packs', 'new', 'wipe_disk', '--dir', dir]).status).toBe(0)
    const file = join(dir, 'wipe_disk', 'skill.json')
    const { class: _safe, ...manifest } = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>
    writeFileSync(file, JSON.stringify({ ...manifest, clas: 'dangerous' }))
    const refused = run(['packs', 'test', join(dir, 'wipe_disk'), '--input', '{"name":"Ada"}'])
    expect(refused.status).toBe(1)
    expect(refused.stdout).toBe('')
    // The CLI prints the finding and its refusal; the plane's log line (written by the logger on its own schedule) says it too.
    const lines = refused.stderr.split('\n')
    expect(lines.filter((line) => !line.startsWith('{')).join('\n')).toBe(
      `${file}:1: error: field "class": missing: declare "safe" (reads only), "mutating" (changes state) or "dangerous" (destructive); ` +
        'unknown field "clas" (did you mean "class"?); skipped\n' +
        'skillplane: the pack in wipe_disk did not load\n',
    )
    expect(lines.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ level: 50, file, msg: expect.stringContaining('skill pack: field "class": missing') }),
    ])
  })
})
