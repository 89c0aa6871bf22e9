import { copyFileSync, existsSync, readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { afterEach, describe, expect, it } from 'vitest'
import pino from 'pino'
import { z } from 'zod'
import pg from 'pg'
import { databases, tempDir, waitFor } from '../test-support/databases.js'
import { admin, agentCaller, openTestPlane, operator, testSkills, tokenLength } from '../test-support/fixtures.js'
import { defineSkill } from '../skill/define-skill.js'
import { createSkillplane, type Skillplane } from '../agents/index.js'
import { silentLogger } from '../test-support/fixtures.js'
import { SECRETS_KEY_ENV, SecretsKey } from './secrets-key.js'
import { toAISDKTools } from '../ai-sdk/index.js'
import { listSkills } from '../inventory/index.js'
import { runCliAsync } from '../test-support/run-cli.js'

const TOKEN = 'ghp_live_token_0123456789abcdef'
const ORG_TOKEN = 'agent-scoped-token-ABCDEF'
const USER_TOKEN = 'alices-own-token-XYZ987'

// Echoes its secret back, as a careless remote service would, in the result, an error and progress.
const echoToken = defineSkill({
  key: 'echo_token',
  description: 'Calls a service with the token and returns what it answered',
  class: 'safe',
  agents: ['Helper'],
  secrets: ['GITHUB_TOKEN'],
  settings: ['GITHUB_ORG'],
  input: z.object({ fail: z.boolean().default(false) }),
  run: ({ fail }, ctx) => {
    const token = ctx.secrets.get('GITHUB_TOKEN')
    ctx.secrets.conceal(`Basic ${Buffer.from(`user:${token}`).toString('base64')}`)
    if (fail) throw new Error(`401 from the service: bad credentials ${token}`)
    return {
      org: ctx.settings.get('GITHUB_ORG'),
      echoed: token,
      header: `Basic ${Buffer.from(`user:${token}`).toString('base64')}`,
      nested: { [token]: [token] },
    }
  },
})

const undeclared = defineSkill({
  key: 'peek_secret',
  description: 'Reads a secret it did not declare',
  class: 'safe',
  secrets: ['GITHUB_TOKEN'],
  run: (_input, ctx) => ctx.secrets.get('AWS_SECRET'),
})

const writeWithToken = defineSkill({
  key: 'write_with_token',
  description: 'A mutating skill that needs a token',
  class: 'mutating',
  agents: ['Helper'],
  secrets: ['DEPLOY_TOKEN'],
  run: () => ({ done: true }),
})

// Hands its token to another skill inside that skill's input: the child's audit row must not keep it.
const childEcho = defineSkill({
  key: 'child_echo',
  description: 'Returns what it was sent',
  class: 'safe',
  input: z.object({ url: z.string() }),
  run: ({ url }) => ({ fetched: url }),
})
const passToken = defineSkill({
  key: 'pass_token',
  description: 'Calls child_echo with a URL that carries its token',
  class: 'safe',
  secrets: ['GITHUB_TOKEN'],
  run: async (_input, ctx) => ctx.invoke(childEcho, { url: `https://api.example.com/?t=${ctx.secrets.get('GITHUB_TOKEN')}` }),
})
// Tries to read its secret while the gate decides.
const gatedToken = defineSkill({
  key: 'gated_token',
  description: 'Reads its secret in needsApproval',
  class: 'safe',
  secrets: ['GITHUB_TOKEN'],
  needsApproval: (_input, ctx) => `about to use ${ctx.secrets.get('GITHUB_TOKEN')}`,
  run: () => 'ran',
})
// Two secrets, one inside the other: the longer must be scrubbed whole.
const twoTokens = defineSkill({
  key: 'two_tokens',
  description: 'Returns the longer of two tokens',
  class: 'safe',
  secrets: ['SHORT_TOKEN', 'LONG_TOKEN'],
  run: (_input, ctx) => `${ctx.secrets.get('SHORT_TOKEN').length}:${ctx.secrets.get('LONG_TOKEN')}`,
})

// Logs its secret and its secret input every way a skill might.
const PASSWORD = 'hunter2-secret-input'
const logToken = defineSkill({
  key: 'log_token',
  description: 'Logs what it must not',
  class: 'safe',
  secrets: ['GITHUB_TOKEN'],
  input: z.object({ password: z.string() }),
  run: ({ password }, ctx) => {
    const token = ctx.secrets.get('GITHUB_TOKEN')
    ctx.logger.info(`calling with ${token}`)
    ctx.logger.warn({ header: `Bearer ${token}`, nested: { list: [token] }, given: password }, `and ${password}`)
    ctx.logger.error({ err: new Error(`rejected ${token}`) }, 'the call failed')
    return 'logged'
  },
})

describe.each(databases)('secrets and settings on $name', (database) => {
  const planes: Skillplane[] = []
  afterEach(async () => {
    await Promise.all(planes.splice(0).map((p) => p.close()))
  })
  const open = async (location?: { dataDir: string; databaseUrl?: string }) => {
    const plane = await openTestPlane(
      database,
      { skills: [...testSkills(), echoToken, undeclared, writeWithToken, tokenLength, childEcho, passToken, gatedToken, twoTokens] },
      location,
    )
    planes.push(plane)
    return plane
  }

  it('refuses a call with needs_auth naming the secret until it is set, without running or asking anyone', async () => {
    const plane = await open()
    const skill = plane.skills.get('echo_token')!
    expect(plane.skills.connectionState(skill, { caller: admin, agentId: null })).toEqual({
      state: 'needs_auth',
      missing: { secrets: ['GITHUB_TOKEN'], settings: ['GITHUB_ORG'] },
    })
    const refused = await plane.invoke('echo_token', {}, { caller: admin })
    expect(refused).toMatchObject({
      ok: false,
      error: {
        code: 'needs_auth',
        message: expect.stringContaining('skillplane secrets set GITHUB_TOKEN'),
        details: { missing: { secrets: ['GITHUB_TOKEN'] } },
      },
    })
    expect(await plane.audit.get(refused.callId)).toMatchObject({ status: 'error', error: { code: 'needs_auth' } })

    // A mutating call an agent makes is refused before an approval request is filed.
    const agentCall = await plane.invoke('write_with_token', {}, { caller: agentCaller('helper') })
    expect(agentCall).toMatchObject({ ok: false, error: { code: 'needs_auth' } })
    expect((await plane.approvals.list({ status: 'pending', limit: 10 })).items).toHaveLength(0)

    await plane.values.secrets.set('GITHUB_TOKEN', TOKEN)
    expect(plane.skills.connectionState(skill, { caller: admin, agentId: null })).toEqual({
      state: 'needs_input',
      missing: { secrets: [], settings: ['GITHUB_ORG'] },
    })
    expect(await plane.invoke('echo_token', {}, { caller: admin })).toMatchObject({
      ok: false,
      error: { code: 'needs_input', message: expect.stringContaining('skillplane settings set GITHUB_ORG') },
    })
    await plane.values.settings.set('GITHUB_ORG', 'acme')
    expect(plane.skills.connectionState(skill, { caller: admin, agentId: null })).toMatchObject({ state: 'ready' })
  })

  it("scrubs the call's secrets and secret inputs from what its skill logs: messages, objects and errors", async () => {
    const lines: string[] = []
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk))
        done()
      },
    })
    const plane = await createSkillplane({ config: { skills: [logToken] }, ...(await database.create()), logger: pino({ level: 'debug' }, sink), sync: true })
    planes.push(plane)
    await plane.values.secrets.set('GITHUB_TOKEN', TOKEN)
    expect(await plane.invoke('log_token', { password: PASSWORD }, { caller: admin })).toMatchObject({ ok: true, data: 'logged' })
    const logged = lines.join('')
    expect(logged).toContain('calling with [REDACTED]')
    expect(logged).toContain('Bearer [REDACTED]')
    expect(logged).toContain('and [REDACTED]')
    expect(logged).toContain('rejected [REDACTED]')
    expect(logged).not.toContain(TOKEN)
    expect(logged).not.toContain(PASSWORD)
  })

  it('scrubs an injected secret from the result, the error, the audit and the database, even when echoed back', async () => {
    const dataDir = tempDir()
    const location = { ...(await database.create()), dataDir }
    const plane = await open(location)
    await plane.values.secrets.set('GITHUB_TOKEN', TOKEN)
    await plane.values.settings.set('GITHUB_ORG', 'acme')
    const ok = await plane.invoke('echo_token', {}, { caller: admin })
    expect(ok).toMatchObject({ ok: true, data: { org: 'acme', echoed: '[REDACTED]', header: '[REDACTED]', nested: { '[REDACTED]': ['[REDACTED]'] } } })
    const failed = await plane.invoke('echo_token', { fail: true }, { caller: admin })
    expect(failed).toMatchObject({ ok: false, error: { code: 'executor_error', message: expect.stringContaining('bad credentials [REDACTED]') } })
    const rows = await plane.audit.query({ limit: 10 })
    expect(JSON.stringify(rows)).not.toContain(TOKEN)
    expect(JSON.stringify(await plane.values.secrets.list())).not.toContain(TOKEN)
    expect(JSON.stringify(await plane.audit.events.list({ limit: 50 }))).not.toContain(TOKEN)
    await plane.close()
    if (database.name === 'sqlite') {
      // Not in any file of the data dir: the database, its WAL, the backlog.
      for (const file of readdirSync(dataDir, { recursive: true, withFileTypes: true })) {
        if (!file.isFile()) continue
        const bytes = readFileSync(join(file.parentPath, file.name))
        expect(bytes.includes(TOKEN), file.name).toBe(false)
        expect(bytes.includes(Buffer.from(TOKEN).toString('base64')), file.name).toBe(false)
      }
    }
  })

  it('keeps a secret a skill hands to a nested call out of the child audit row and result, scrubs the longer of two nested secrets whole, and opens none for needsApproval', async () => {
    const plane = await open()
    await plane.values.secrets.set('GITHUB_TOKEN', TOKEN)
    const parent = await plane.invoke('pass_token', {}, { caller: admin })
    expect(parent).toMatchObject({ ok: true, data: { ok: true, data: { fetched: 'https://api.example.com/?t=[REDACTED]' } } })
    const child = (await plane.audit.query({ skill: 'child_echo', limit: 5 })).items[0]!
    expect(child.parentCallId).toBe(parent.callId)
    expect(JSON.stringify(child)).not.toContain(TOKEN)
    expect(child.input).toEqual({ url: 'https://api.example.com/?t=[REDACTED]' })

    const gated = await plane.invoke('gated_token', {}, { caller: admin })
    expect(gated).toMatchObject({ ok: false, error: { code: 'executor_error', message: expect.stringContaining('opened once the call has passed the gate') } })
    expect(JSON.stringify(await plane.approvals.list({ limit: 10 }))).not.toContain(TOKEN)

    await plane.values.secrets.set('SHORT_TOKEN', 'abcd1234')
    await plane.values.secrets.set('LONG_TOKEN', 'abcd1234-and-the-rest')
    expect(await plane.invoke('two_tokens', {}, { caller: admin })).toMatchObject({ ok: true, data: '8:[REDACTED]' })
  })

  it('resolves a user value before an agent value before the global one, and versions each change', async () => {
    const plane = await open()
    const first = await plane.values.secrets.set('GITHUB_TOKEN', TOKEN)
    expect(first).toMatchObject({ name: 'GITHUB_TOKEN', scope: 'global', subject: null, version: 1 })
    expect(first).not.toHaveProperty('value')
    expect(await plane.values.secrets.set('GITHUB_TOKEN', `${TOKEN}-rotated`)).toMatchObject({ version: 2 })
    await plane.values.secrets.set('GITHUB_TOKEN', ORG_TOKEN, { agent: 'Helper' })
    await plane.values.secrets.set('GITHUB_TOKEN', USER_TOKEN, { user: 'alice' })
    await plane.values.settings.set('GITHUB_ORG', 'acme')
    // The three tokens differ in length: the executor reports which one it was given.
    const seen = async (caller: typeof admin, agent?: string) => plane.invoke('token_length', {}, { caller, ...(agent && { agent }) })
    expect(await seen(admin)).toMatchObject({ ok: true, data: USER_TOKEN.length })
    expect(await seen(admin, 'Helper')).toMatchObject({ ok: true, data: USER_TOKEN.length })
    expect(await seen(operator, 'Helper')).toMatchObject({ ok: true, data: ORG_TOKEN.length })
    expect(await seen(agentCaller('helper'))).toMatchObject({ ok: true, data: ORG_TOKEN.length })
    expect(await seen(operator)).toMatchObject({ ok: true, data: TOKEN.length + '-rotated'.length })
    const list = await plane.values.secrets.list()
    expect(list.map((s) => [s.scope, s.subject, s.version])).toEqual([
      ['agent', 'helper', 1],
      ['global', null, 2],
      ['user', 'alice', 1],
    ])
    expect(JSON.stringify(list)).not.toMatch(/token-|rotated|XYZ987/)
    expect((await plane.values.settings.list())[0]).toMatchObject({ name: 'GITHUB_ORG', value: 'acme' })
    const events = await plane.audit.events.list({ limit: 50 })
    expect(events.items.filter((e) => e.kind === 'secret.set').map((e) => e.subject)).toEqual(Array(4).fill('secret:GITHUB_TOKEN'))
    expect(await plane.values.secrets.delete('GITHUB_TOKEN', { user: 'alice' })).toMatchObject({ scope: 'user', version: 1 })
    expect(await plane.values.secrets.delete('GITHUB_TOKEN', { user: 'alice' })).toBeNull()
  })

  it('shows the state a call would meet: a run acting for a person sees their value, a listing for an agent sees its value', async () => {
    const plane = await open()
    const helper = agentCaller('helper')
    const alice = { ...operator, id: 'k-alice', name: 'alice' }
    await plane.values.secrets.set('GITHUB_TOKEN', USER_TOKEN, { user: 'alice' })
    const described = (onBehalfOf?: typeof alice) =>
      (toAISDKTools(plane, { caller: helper, ...(onBehalfOf && { onBehalfOf }) }) as Record<string, { description?: string }>).token_length?.description
    expect(described()).toContain('Not connected yet (needs_auth)')
    expect(described(alice)).not.toContain('Not connected')
    expect(await plane.invoke('token_length', {}, { caller: helper, onBehalfOf: alice })).toMatchObject({ ok: true, data: USER_TOKEN.length })

    await plane.values.secrets.set('DEPLOY_TOKEN', ORG_TOKEN, { agent: 'Helper' })
    const state = (filter: { agentId?: string }) =>
      listSkills(plane.skills, operator, filter).find((s) => s.key === 'write_with_token') as { connection?: { state: string } }
    expect(state({}).connection?.state).toBe('needs_auth')
    expect(state({ agentId: 'helper' }).connection?.state).toBe('ready')
  })

  it('rejects bad names, empty values, unknown agents and undeclared reads with clear errors', async () => {
    const plane = await open()
    await expect(plane.values.secrets.set('bad-name', 'x')).rejects.toThrow(/secret name "bad-name" is not valid/)
    await expect(plane.values.secrets.set('__proto__', 'x')).rejects.toThrow(/secret name "__proto__" is not valid/)
    await expect(plane.values.secrets.set('OK', '')).rejects.toThrow(/must be a non-empty string/)
    await expect(plane.values.secrets.set('OK', 'x'.repeat(70_000))).rejects.toThrow(/larger than 65536 bytes/)
    await expect(plane.values.secrets.set('OK', 'v', { agent: 'Nobody' })).rejects.toThrow(/unknown agent "Nobody"/)
    await expect(plane.values.secrets.set('OK', 'v', { agent: 'Helper', user: 'alice' })).rejects.toThrow(/not both/)
    // An empty owner is refused, not taken for the global value.
    await expect(plane.values.secrets.set('OK', 'v', { user: '' })).rejects.toThrow(/the user of a secret must be a non-empty name/)
    await expect(plane.values.secrets.set('OK', 'v', { agent: ' ' })).rejects.toThrow(/the agent of a secret must be a non-empty name/)
    await expect(plane.values.secrets.delete('OK', { user: '' })).rejects.toThrow(/must be a non-empty name/)
    expect(await plane.values.secrets.list()).toEqual([])
    await plane.values.secrets.set('GITHUB_TOKEN', TOKEN)
    expect(await plane.invoke('peek_secret', {}, { caller: admin })).toMatchObject({
      ok: false,
      error: { code: 'executor_error', message: expect.stringContaining('did not declare the secret "AWS_SECRET"') },
    })
  })

  it('refuses a definition whose secrets are not names', async () => {
    const bad = defineSkill({ key: 'bad_decl', description: 'x', class: 'safe', secrets: ['has space'], run: () => null })
    await expect(openTestPlane(database, { skills: [bad] })).rejects.toThrow(/skill "bad_decl".*secrets entry "has space" is not a valid name/)
  })
})

describe('the secrets key', () => {
  it('refuses to start a manager whose key is not the one the database was sealed with', async () => {
    const location = await databases[0]!.create()
    const first = await createSkillplane({ ...location, logger: silentLogger(), config: { skills: [echoToken] } })
    await first.values.secrets.set('GITHUB_TOKEN', TOKEN)
    await first.close()
    await expect(createSkillplane({ ...location, logger: silentLogger(), config: { skills: [echoToken] } }).then((p) => p.close())).resolves.toBeUndefined()
    process.env[SECRETS_KEY_ENV] = 'ab'.repeat(32)
    try {
      await expect(createSkillplane({ ...location, logger: silentLogger(), config: { skills: [echoToken] } })).rejects.toThrow(
        /the secrets key in SKILLPLANE_SECRETS_KEY is not the one this database's secrets are encrypted with/,
      )
    } finally {
      delete process.env[SECRETS_KEY_ENV]
    }
  })
})

describe.each(databases)('rotating the secrets key on $name', (database) => {
  it('re-seals every value under a new key in one transaction, moves the fingerprint, and is refused while another manager runs', async () => {
    const location = await database.create()
    const keyFile = join(location.dataDir, 'secrets-key')
    const open = () => openTestPlane(database, { skills: [...testSkills(), echoToken, tokenLength] }, location)
    const first = await open()
    await first.values.secrets.set('GITHUB_TOKEN', TOKEN)
    await first.values.secrets.set('GITHUB_TOKEN', ORG_TOKEN, { agent: 'helper' })
    await first.values.settings.set('GITHUB_ORG', 'acme')
    const oldKey = readFileSync(keyFile, 'utf8').trim()

    const busy = await runCliAsync(location, ['secrets', 'rotate-key'])
    expect(busy.code).toBe(1)
    expect(busy.stderr).toMatch(
      /^skillplane: other managers are running on this database \(\S+ pid \d+\): stop them, rotate, then start each with the new key\n$/,
    )
    expect(readFileSync(keyFile, 'utf8').trim()).toBe(oldKey)
    await first.close()

    const rotated = await runCliAsync(location, ['secrets', 'rotate-key'])
    expect(rotated.stderr).toBe('')
    expect(rotated.stdout).toBe(
      `re-sealed 3 values (secrets and settings) under a new key (fingerprint ${rotated.stdout.match(/fingerprint ([0-9a-f]{16})/)?.[1]})\n` +
        `wrote the new key to ${keyFile}: copy it to every manager sharing this database before starting it\n`,
    )
    const newKey = readFileSync(keyFile, 'utf8').trim()
    expect(newKey).toMatch(/^[0-9a-f]{64}$/)
    expect(newKey).not.toBe(oldKey)
    expect(existsSync(`${keyFile}.new`)).toBe(false)

    const again = await open()
    expect(await again.invoke('token_length', {}, { caller: admin })).toMatchObject({ ok: true, data: TOKEN.length })
    expect(await again.invoke('token_length', {}, { caller: agentCaller('helper') })).toMatchObject({ ok: true, data: ORG_TOKEN.length })
    expect(await again.invoke('echo_token', {}, { caller: admin })).toMatchObject({ ok: true, data: { org: 'acme', echoed: '[REDACTED]' } })
    expect((await again.audit.events.list({ kind: 'secrets.key_rotated', limit: 5 })).items).toMatchObject([
      { actor: { name: expect.stringMatching(/^local:/) }, details: { resealed: 3, unreadable: 0, fingerprint: expect.stringMatching(/^[0-9a-f]{16}$/) } },
    ])
    await again.close()

    // The old key no longer opens this database: a manager still holding it stops at start.
    process.env[SECRETS_KEY_ENV] = oldKey
    try {
      await expect(open()).rejects.toThrow(/the secrets key in SKILLPLANE_SECRETS_KEY is not the one this database's secrets are encrypted with/)
    } finally {
      delete process.env[SECRETS_KEY_ENV]
    }

    // A key from the environment: the new one is printed, and kept in secrets-key.new (written before the commit); the key file is left alone.
    const fromEnv = await runCliAsync(location, ['secrets', 'rotate-key', '--json'], { env: { [SECRETS_KEY_ENV]: newKey } })
    expect(fromEnv.stderr).toBe('')
    const report = fromEnv.json()
    expect(report).toMatchObject({ resealed: 3, unreadable: 0, keyFile: `${keyFile}.new`, key: expect.stringMatching(/^[0-9a-f]{64}$/) })
    expect(readFileSync(keyFile, 'utf8').trim()).toBe(newKey)
    expect(readFileSync(`${keyFile}.new`, 'utf8').trim()).toBe(report.key)
    expect(statSync(`${keyFile}.new`).mode & 0o777).toBe(0o600)
    const inWords = await runCliAsync(location, ['secrets', 'rotate-key'], { env: { [SECRETS_KEY_ENV]: report.key } })
    expect(inWords.stderr).toBe('')
    const newest = readFileSync(`${keyFile}.new`, 'utf8').trim()
    expect(inWords.stdout.split('\n').slice(1)).toEqual([
      `the new key: set SKILLPLANE_SECRETS_KEY=${newest} for every manager before starting it; it is also in ${keyFile}.new (mode 0600): delete that file once the key is stored where you keep it`,
      '',
    ])
    process.env[SECRETS_KEY_ENV] = newest
    try {
      const third = await open()
      expect(await third.invoke('token_length', {}, { caller: admin })).toMatchObject({ ok: true, data: TOKEN.length })
      await third.close()
    } finally {
      delete process.env[SECRETS_KEY_ENV]
    }
  })
})

const postgres = databases.find((d) => d.name === 'postgres')

/** Whether a session waits for a lock on connection_values: where a rotation stalls when the test holds the table. */
async function waitingOnValues(client: pg.Client): Promise<boolean> {
  const { rows } = await client.query(
    "select count(*)::int as n from pg_locks l join pg_class c on c.oid = l.relation where c.relname = 'connection_values' and not l.granted",
  )
  return rows[0].n > 0
}

describe.skipIf(!postgres)('rotating the secrets key against concurrent work on PostgreSQL', () => {
  it('waits for a value being set when the rotation starts, and re-seals it too', async () => {
    const location = await postgres!.create()
    const plane = await openTestPlane(postgres!, { skills: [...testSkills(), echoToken] }, location)
    await plane.values.secrets.set('GITHUB_TOKEN', TOKEN)
    // Another manager mid-`settings set`: its value sealed under the old key, its transaction not committed yet.
    const writer = new pg.Client({ connectionString: location.databaseUrl })
    await writer.connect()
    try {
      const oldKey = SecretsKey.load(location.dataDir)
      await writer.query('begin')
      await writer.query(
        "insert into connection_values (kind, name, scope, subject, version, sealed, updated_at, updated_by) values ('setting', 'GITHUB_ORG', 'global', '', 1, $1, $2, 'other')",
        [oldKey.seal('acme', JSON.stringify(['setting', 'GITHUB_ORG', 'global', ''])), plane.now()],
      )
      const rotating = plane.values.rotateSecretsKey(admin)
      await waitFor(() => waitingOnValues(writer), 15_000)
      await writer.query('commit')
      expect(await rotating).toMatchObject({ resealed: 2, unreadable: 0 })
      expect(await plane.values.settings.list()).toMatchObject([{ name: 'GITHUB_ORG', value: 'acme' }])
      expect(await plane.invoke('echo_token', {}, { caller: admin })).toMatchObject({ ok: true, data: { org: 'acme', echoed: '[REDACTED]' } })
    } finally {
      await writer.end()
      await plane.close()
    }
  })

  it('refuses when a manager started while it waited: the late manager is seen inside the transaction and keeps working', async () => {
    const location = await postgres!.create()
    const first = await openTestPlane(postgres!, { skills: [...testSkills(), tokenLength] }, location)
    await first.values.secrets.set('GITHUB_TOKEN', TOKEN)
    const keyFile = join(location.dataDir, 'secrets-key')
    const oldKey = readFileSync(keyFile, 'utf8').trim()
    // The late manager has its own data dir holding copies of the shared key and approval secret.
    const lateDir = tempDir()
    for (const file of ['secrets-key', 'approval-secret']) copyFileSync(join(location.dataDir, file), join(lateDir, file))
    const holder = new pg.Client({ connectionString: location.databaseUrl })
    await holder.connect()
    let late: Skillplane | undefined
    try {
      // Holding the table stalls the rotation after its first look for peers found none.
      await holder.query('begin')
      await holder.query('lock table connection_values in exclusive mode')
      const rotating = observed(first.values.rotateSecretsKey(admin))
      await waitFor(() => waitingOnValues(holder), 15_000)
      late = await openTestPlane(postgres!, { skills: [...testSkills(), tokenLength] }, { dataDir: lateDir, databaseUrl: location.databaseUrl })
      await holder.query('commit')
      await expect(rotating).rejects.toThrow(
        /^other managers are running on this database \(\S+ pid \d+\): stop them, rotate, then start each with the new key$/,
      )
      expect(readFileSync(keyFile, 'utf8').trim()).toBe(oldKey)
      expect(existsSync(`${keyFile}.new`)).toBe(false)
      expect(await late.invoke('token_length', {}, { caller: admin })).toMatchObject({ ok: true, data: TOKEN.length })
      expect(await first.invoke('token_length', {}, { caller: admin })).toMatchObject({ ok: true, data: TOKEN.length })
    } finally {
      await holder.end()
      await late?.close()
      await first.close()
    }
  })
})

/** A promise whose rejection is observed now and asserted later. */
function observed<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {})
  return promise
}
