import { writeFileSync } from 'node:fs'
import { userInfo } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { databases, tempDir, waitFor } from '../../test-support/databases.js'
import { openTestPlane } from '../../test-support/fixtures.js'
import {
  SERVICE_CLIENT,
  connectInBrowser,
  startTestOAuthService,
  type TestOAuthService,
  whoamiSkill,
  serviceProvider,
} from '../../test-support/oauth-service.js'
import { runCli, runCliAsync, type CliRun } from '../../test-support/run-cli.js'
import type { Caller } from '../../skill/index.js'
import type { SkillplaneConfig } from '../../config/index.js'
import { startHttpServer } from '../http/index.js'

let serviceApi = ''
/** Whose token the service says a connection's is. */
const whoami = whoamiSkill(() => serviceApi, { key: 'svc_whoami', provider: 'svc', scopes: ['issues:read'] })
const alice: Caller = { kind: 'user', id: 'alice', name: 'alice', role: 'operator' }
const localAdmin = `local:${userInfo().username}`

describe.each(databases)('skillplane connections on $name', (database) => {
  let service: TestOAuthService
  const cleanup: Array<() => Promise<unknown>> = []
  beforeAll(async () => {
    service = await startTestOAuthService()
    serviceApi = service.api
  })
  afterAll(() => service.close())
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step().catch(() => {})
  })

  const providers = (): NonNullable<SkillplaneConfig['oauth']> => ({
    providers: {
      svc: serviceProvider(service, 'SVC_CLIENT_SECRET', 'Test Service'),
    },
  })

  /** A config file naming the test service as provider `svc`, as an admin would write it. */
  function configFile(): string {
    const file = join(tempDir('skillplane-oauth-cli-'), 'skillplane.config.mjs')
    writeFileSync(file, `export default { oauth: ${JSON.stringify(providers())} }\n`)
    return file
  }

  /** Open a connect link as a browser would, approve at the service as `account`, and follow the callback. */
  async function approve(link: string, account: string): Promise<string | null> {
    const back = await connectInBrowser(link, (url) => service.approve(url, account))
    expect(back.status).toBe(302)
    return back.location
  }

  it('prints connect links the person and the admin follow, lists the connections (never a token), and disconnects revoking at the provider', async () => {
    const location = await database.create()
    const config = configFile()
    // Async: the provider answering a revocation runs in this process.
    const cli = (...args: string[]) => runCliAsync(location, args, { config })

    expect((await cli('connections', 'list')).stdout).toBe('PROVIDER  TITLE         DEFAULT SCOPES\nsvc       Test Service  issues:read\n\nno connections\n')
    expect(await cli('connections', 'connect', 'svc', '--user', 'alicia')).toMatchObject({ code: 1, stderr: 'skillplane: no user "alicia"\n' })
    expect((await cli('users', 'add', 'alice')).code).toBe(0)
    expect((await cli('users', 'add', 'bob', '--role', 'viewer')).code).toBe(0)
    // No server has listened on this database and no http.publicUrl: a link would lead nowhere.
    expect(await cli('connections', 'connect', 'svc', '--user', 'alice')).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('skillplane: this database has no server address to link to: set http.publicUrl'),
    })

    expect(runCli(location, ['secrets', 'set', 'SVC_CLIENT_SECRET'], { config, input: SERVICE_CLIENT.clientSecret }).code).toBe(0)
    const plane = await openTestPlane(database, { skills: [whoami], oauth: providers() }, location)
    cleanup.push(() => plane.close())
    const server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    cleanup.push(() => server.close())

    // The link names the address this server listens at, recorded in the database once it listens.
    let printed: CliRun | undefined
    await waitFor(async () => (printed = await cli('connections', 'connect', 'svc', '--user', 'alice')).code === 0)
    const lines = printed!.stdout.split('\n')
    expect(lines[0]).toBe('Send this link to alice: opening it connects their account at svc (Test Service), asking for issues:read. Valid for 10 minutes:')
    expect(lines[1]).toMatch(new RegExp(`^${server.url}/oauth/start\\?link=[\\w.-]+$`))
    expect(printed!.stderr).toBe(
      `skillplane: the link names ${server.url}, where a server of this database last listened; set http.publicUrl for an address other machines reach\n`,
    )
    expect(await approve(lines[1]!, 'alice')).toBe('/connections?connected=svc')
    expect(await plane.invoke('svc_whoami', {}, { caller: alice })).toMatchObject({ ok: true, data: { sub: 'alice' } })

    // The service account's, made by the admin following their own link.
    expect((await cli('connections', 'connect', 'svc', '--service')).stdout).toMatch(
      new RegExp(
        `^Open this link and sign in at svc \\(Test Service\\) as the service account to connect it, asking for issues:read\\. Valid for 10 minutes:\\n${server.url}/oauth/start\\?link=\\S+\\n$`,
      ),
    )
    const service_ = await cli(
      'connections',
      'connect',
      'svc',
      '--service',
      '--scope',
      'issues:read',
      '--scope',
      'issues:write',
      '--return-to',
      '/skills/svc_whoami',
      '--json',
    )
    expect(service_.json()).toEqual({
      authorizationUrl: expect.stringMatching(/\/oauth\/start\?link=/),
      expiresInMs: 600_000,
      scopes: ['issues:read', 'issues:write'],
    })
    expect(await approve(service_.json().authorizationUrl, 'ops-robot')).toBe('/skills/svc_whoami?connected=svc')

    const listed = await cli('connections', 'list', '--json')
    expect(listed.json()).toEqual({
      providers: [{ name: 'svc', title: 'Test Service', defaultScopes: ['issues:read'] }],
      connections: expect.arrayContaining([
        expect.objectContaining({
          provider: 'svc',
          account: 'person',
          subject: 'alice',
          state: 'ready',
          scopes: ['issues:read'],
          missingScopes: [],
          connectedBy: localAdmin,
        }),
        expect.objectContaining({
          provider: 'svc',
          account: 'service',
          subject: null,
          state: 'ready',
          scopes: ['issues:read', 'issues:write'],
          connectedBy: localAdmin,
        }),
      ]),
    })
    expect(listed.json().connections).toHaveLength(2)
    expect(listed.json().connections[0].expiresAt).toMatch(/^\d{4}-\d\d-\d\dT/)
    const table = (await cli('connections', 'list')).stdout
    expect(table).toMatch(/\n\nPROVIDER\s+ACCOUNT\s+PERSON\s+STATE\s+SCOPES\s+MISSING\s+EXPIRES\s+CONNECTED\s+CONNECTED BY\s+REASON\n/)
    expect(table).toMatch(new RegExp(`\\nsvc\\s+person\\s+alice\\s+ready\\s+issues:read\\s+-\\s+\\S+Z\\s+\\S+Z\\s+${localAdmin}\\s+-\\n`))
    expect(table).toMatch(/\nsvc\s+service\s+-\s+ready\s+issues:read issues:write\s+-\s/)
    // Never a token: not alice's, not the service account's.
    const tokens = [await plane.oauth.token('svc', 'alice', []), await plane.oauth.token('svc', '', [])]
    for (const output of [table, listed.stdout])
      for (const t of tokens) for (const secret of [t.accessToken, t.refreshToken].filter(Boolean)) expect(output).not.toContain(secret)
    // One person's: theirs only.
    expect((await cli('connections', 'list', '--user', 'alice', '--json')).json().connections).toEqual([expect.objectContaining({ subject: 'alice' })])
    expect((await cli('connections', 'list', '--user', 'bob')).stdout).toMatch(/\n\nno connections of bob\n$/)
    expect(await cli('connections', 'list', '--user', 'bbo')).toMatchObject({ code: 1, stderr: 'skillplane: no user "bbo" (did you mean "bob"?)\n' })

    // A service-account link made --as an admin opens only in that admin's browser when it is signed in to the console.
    expect((await cli('users', 'add', 'root', '--role', 'admin')).code).toBe(0)
    expect(await cli('connections', 'connect', 'svc', '--service', '--as', 'nobody')).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('no user "nobody"'),
    })
    expect(await cli('connections', 'connect', 'svc', '--user', 'alice', '--as', 'root')).toMatchObject({
      code: 1,
      stderr: "skillplane: --as names the admin who opens a service-account link; a person's link opens in their own browser\n",
    })
    const asRoot = (await cli('connections', 'connect', 'svc', '--service', '--as', 'root', '--json')).json().authorizationUrl as string
    const signedIn = async (name: string) => `skillplane_session=${(await plane.people.sessions.open((await plane.people.users.get(name))!.id)).token}`
    const inBobs = await fetch(asRoot, { redirect: 'manual', headers: { cookie: await signedIn('bob') } })
    expect(inBobs.status).toBe(400)
    expect(await inBobs.text()).toContain('this link connects the service account for root; you are signed in as bob')
    expect((await fetch(asRoot, { redirect: 'manual', headers: { cookie: await signedIn('root') } })).status).toBe(302)

    const revocations = service.revocations
    const gone = await cli('connections', 'disconnect', 'svc', '--user', 'alice')
    expect(gone).toMatchObject({ code: 0, stdout: "disconnected alice's svc connection: its tokens are deleted and revoked at the provider\n" })
    expect(service.revocations).toBeGreaterThan(revocations)
    expect(await plane.invoke('svc_whoami', {}, { caller: alice })).toMatchObject({ ok: false, error: { code: 'needs_auth' } })
    expect(await cli('connections', 'disconnect', 'svc', '--user', 'alice')).toMatchObject({ code: 1, stderr: 'skillplane: alice has no svc connection\n' })
    expect((await cli('connections', 'disconnect', 'svc', '--service', '--json')).json()).toMatchObject({ account: 'service', subject: null, revoked: true })
    expect(await cli('connections', 'disconnect', 'svc', '--service')).toMatchObject({
      code: 1,
      stderr: 'skillplane: the service account has no svc connection\n',
    })
    expect((await cli('connections', 'list')).stdout).toMatch(/\n\nno connections\n$/)
  })

  it('refuses an unknown provider (naming the configured ones), both --user and --service, neither, and an empty --user', async () => {
    const location = await database.create()
    const config = configFile()
    const cli = (...args: string[]) => runCliAsync(location, args, { config })
    expect((await cli('users', 'add', 'alice')).code).toBe(0)
    for (const command of ['connect', 'disconnect']) {
      expect(await cli('connections', command, 'scv', '--user', 'alice')).toMatchObject({
        code: 1,
        stderr: 'skillplane: no OAuth provider named "scv" (did you mean "svc"?); configured: svc\n',
      })
      expect(await cli('connections', command, 'svc', '--user', 'alice', '--service')).toMatchObject({
        code: 1,
        stderr: 'skillplane: give --user or --service, not both\n',
      })
      expect(await cli('connections', command, 'svc')).toMatchObject({
        code: 1,
        stderr: 'skillplane: name whose connection: --user NAME for a person, or --service for the service account\n',
      })
      expect(await cli('connections', command, 'svc', '--user', ' ')).toMatchObject({ code: 1, stderr: 'skillplane: --user is empty: name the person\n' })
    }
    expect(await cli('users', 'disable', 'alice')).toMatchObject({ code: 0 })
    expect(await cli('connections', 'connect', 'svc', '--user', 'alice')).toMatchObject({
      code: 1,
      stderr: 'skillplane: user alice is disabled, so their connections are not used: skillplane users enable alice first\n',
    })
    // With a console sign-in, a service-account link must name the admin whose browser opens it.
    const signIn = join(tempDir('skillplane-oauth-cli-'), 'skillplane.config.mjs')
    writeFileSync(
      signIn,
      `export default { auth: { oidc: { issuer: ${JSON.stringify(service.issuer)}, clientId: 'console', clientSecretEnv: 'SP_TEST_CONSOLE_SECRET', roles: { admin: ['admins'] } } }, oauth: ${JSON.stringify(providers())} }\n`,
    )
    expect(
      await runCliAsync(location, ['connections', 'connect', 'svc', '--service'], { config: signIn, env: { SP_TEST_CONSOLE_SECRET: 'unused' } }),
    ).toMatchObject({
      code: 1,
      stderr:
        'skillplane: the console has a sign-in, so a service-account link opens only in the browser of the admin it names: give --as NAME (the user who will open it)\n',
    })
    // A config without providers says so, and names none.
    const bare = (...args: string[]) => runCliAsync(location, args)
    expect((await bare('connections', 'list')).stdout).toBe('no OAuth providers configured (name them under oauth.providers in the config)\n\nno connections\n')
    expect(await bare('connections', 'disconnect', 'svc', '--service')).toMatchObject({
      code: 1,
      stderr: 'skillplane: no OAuth provider named "svc"; configured: none (name them under oauth.providers in the config)\n',
    })
  })
})
