import { freePort } from '../../src/test-support/free-port.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { createSkillplane, type Skillplane } from '../../src/index.js'
import { startHttpServer } from '../../src/surfaces/http/index.js'
import { databases } from '../../src/test-support/databases.js'
import { silentLogger, testAgents, testSkills } from '../../src/test-support/fixtures.js'
import { chromiumAvailable, cspViolations, launchChromium, screenshot } from '../../src/test-support/browser.js'
import { CONSOLE_CLIENT, startTestIdentityProvider, type TestIdentityProvider } from '../../src/test-support/identity-provider.js'

const sqlite = databases.find((d) => d.name === 'sqlite')!
const ROLES = { admin: ['sp-admins'], operator: ['sp-operators'], viewer: ['sp-viewers'] }
const root = { id: 'root', name: 'root' }

describe('signing in to the console with the identity provider', () => {
  let idp: TestIdentityProvider
  let plane: Skillplane
  let server: { url: string; close(): Promise<void> }

  beforeAll(async () => {
    const port = await freePort()
    idp = await startTestIdentityProvider({ consoleRedirectUris: [`http://127.0.0.1:${port}/auth/callback`] })
    process.env.SP_TEST_CONSOLE_SECRET = CONSOLE_CLIENT.clientSecret
    plane = await createSkillplane({
      config: {
        skills: testSkills(),
        agents: testAgents,
        auth: {
          oidc: {
            issuer: idp.issuer,
            clientId: CONSOLE_CLIENT.clientId,
            clientSecretEnv: 'SP_TEST_CONSOLE_SECRET',
            scopes: ['openid', 'profile', 'groups'],
            roles: ROLES,
          },
        },
      },
      ...(await sqlite.create()),
      logger: silentLogger(),
      sync: true,
    })
    server = await startHttpServer(plane, { host: '127.0.0.1', port })
  })
  afterAll(async () => {
    await server?.close()
    await plane?.close()
    await idp?.close()
  })

  /** The whole code flow with fetch: the console's cookies kept by hand, the provider's sign-in as `account`. */
  const signInAs = async (account: string, returnTo?: string) => {
    const login = await fetch(`${server.url}/auth/login${returnTo ? `?returnTo=${encodeURIComponent(returnTo)}` : ''}`, { redirect: 'manual' })
    expect(login.status).toBe(302)
    const signInCookie = login.headers.getSetCookie()[0]!.split(';')[0]!
    const back = await idp.signIn(login.headers.get('location')!, account)
    expect(back.pathname).toBe('/auth/callback')
    const callback = await fetch(back, { redirect: 'manual', headers: { cookie: signInCookie } })
    const session = callback.headers.getSetCookie().find((c) => c.startsWith('skillplane_session='))
    return { callback, back, signInCookie, cookie: session?.split(';')[0], setCookie: session, location: callback.headers.get('location') }
  }
  const me = (cookie: string) => fetch(`${server.url}/api/me`, { headers: { cookie } })

  it('opens an HTTP-only session with a CSRF token for changes, returns only to console paths, and ends at sign-out', async () => {
    expect(await (await fetch(`${server.url}/auth/config`)).json()).toEqual({ oidc: { issuer: idp.issuer, signInUrl: '/auth/login' }, session: false })
    const alice = await signInAs('alice', '/audit?status=error')
    // The console learns of the HTTP-only session here, before it asks /api/me.
    expect(await (await fetch(`${server.url}/auth/config`, { headers: { cookie: alice.cookie! } })).json()).toMatchObject({ session: true })
    expect(alice.location).toBe('/audit?status=error')
    expect(alice.setCookie).toMatch(/^skillplane_session=[\w-]{43}; Max-Age=28800; Path=\/; HttpOnly; SameSite=Lax$/)
    const who = (await (await me(alice.cookie!)).json()) as { caller: Record<string, unknown>; csrfToken: string }
    const user = (await plane.people.users.get('alice'))!
    expect(who.caller).toEqual({ kind: 'user', id: user.id, name: 'alice', displayName: 'Alice Admin', role: 'admin', auth: 'session' })
    expect(user).toMatchObject({ role: 'admin', external: { issuer: idp.issuer, subject: 'alice' } })

    // A change needs the CSRF token: a page of another site can make the browser send the cookie, not the header.
    const invoke = (headers: Record<string, string>) =>
      fetch(`${server.url}/api/skills/echo/invoke`, {
        method: 'POST',
        headers: { cookie: alice.cookie!, 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ input: { message: 'hi' } }),
      })
    const forged = await invoke({})
    expect(forged.status).toBe(403)
    expect(((await forged.json()) as { error: { message: string } }).error.message).toContain('needs its CSRF token in the x-csrf-token header')
    expect((await invoke({ 'x-csrf-token': 'guess' })).status).toBe(403)
    expect((await invoke({ 'x-csrf-token': who.csrfToken })).status).toBe(200)
    const [row] = (await plane.audit.query({ skill: 'echo', limit: 1 })).items
    expect(row!.caller).toMatchObject({ id: user.id, name: 'alice', auth: 'session', user: { id: user.id, displayName: 'Alice Admin' } })

    // Only console paths are returned to.
    for (const elsewhere of ['//evil.example/x', 'https://evil.example/', '/\\evil.example']) expect((await signInAs('oscar', elsewhere)).location).toBe('/')

    // A local user keeps their name: the provider's bob is another user, named after the provider.
    await plane.people.users.add({ name: 'bob', role: 'admin' }, root)
    const bob = await signInAs('bob')
    const bobCaller = ((await (await me(bob.cookie!)).json()) as { caller: { name: string; role: string } }).caller
    expect(bobCaller).toMatchObject({ name: `bob@${new URL(idp.issuer).host}`, role: 'viewer' })
    // A name that reads like a user id is refused: it would be taken for one.
    await expect(plane.people.users.add({ name: user.id }, root)).rejects.toThrow(`user name "${user.id}" looks like an id: choose another`)

    const out = await fetch(`${server.url}/auth/logout`, { method: 'POST', headers: { cookie: alice.cookie!, 'x-csrf-token': who.csrfToken } })
    expect(out.status).toBe(204)
    expect(out.headers.getSetCookie()[0]).toMatch(/^skillplane_session=; Max-Age=0/)
    expect((await me(alice.cookie!)).status).toBe(401)
    expect((await plane.audit.events.list({ kind: 'session.closed', limit: 5 })).items).toHaveLength(1)
  })

  it('refuses a callback this browser did not start, one used twice, and a person without a role', async () => {
    const alice = await signInAs('alice')
    expect(alice.cookie).toBeDefined()
    // The same callback again (a replayed code and state): the sign-in was taken.
    const again = await fetch(alice.back, { redirect: 'manual', headers: { cookie: alice.signInCookie } })
    expect(decodeURIComponent(again.headers.get('location')!)).toBe('/?signInError=this sign-in expired or was used already: start it again')
    // A callback carried to another browser (login CSRF): no sign-in cookie, no session.
    const login = await fetch(`${server.url}/auth/login`, { redirect: 'manual' })
    const back = await idp.signIn(login.headers.get('location')!, 'bob')
    const stranger = await fetch(back, { redirect: 'manual' })
    expect(stranger.headers.getSetCookie().some((c) => c.startsWith('skillplane_session='))).toBe(false)
    expect(decodeURIComponent(stranger.headers.get('location')!)).toBe('/?signInError=this sign-in was not started in this browser: start it again')

    const carol = await signInAs('carol')
    expect(carol.cookie).toBeUndefined()
    expect(decodeURIComponent(carol.location!)).toBe('/?signInError=Carol Nobody has no skillplane role: its groups claim names no group of auth.oidc.roles')
  })

  describe.runIf(chromiumAvailable())('in Chromium', () => {
    let browser: Browser
    beforeAll(async () => {
      browser = await launchChromium()
    })
    afterAll(async () => {
      expect(cspViolations).toEqual([])
      await browser?.close()
    })

    it('signs in through the code flow, works with the role its groups grant, and is locked out when the user is disabled', async () => {
      const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage()
      page.setDefaultTimeout(15_000)
      await page.goto(server.url)
      await page.getByRole('link', { name: `Sign in with ${new URL(idp.issuer).host}` }).click()
      // The provider's own sign-in page.
      await page.locator('input[name="login"]').fill('oscar')
      await page.getByRole('button', { name: 'Sign in' }).click()
      await expect.poll(() => page.getByTestId('who').textContent()).toBe('Oscar Operator · operator')
      await screenshot(page, 'signed-in-with-provider')
      // An operator's change goes through with the session's CSRF token.
      await page.goto(`${server.url}/skills/write_thing`)
      await page.getByLabel('value').fill('from the console')
      await page.getByRole('button', { name: 'Invoke' }).click()
      await expect.poll(() => page.getByTestId('invoke-result').textContent()).toContain('"stored": "from the console"')

      await plane.people.users.disable('oscar', root)
      await page.goto(`${server.url}/skills`)
      await page.getByRole('link', { name: `Sign in with ${new URL(idp.issuer).host}` }).waitFor()
      expect((await plane.audit.events.list({ kind: 'user.disabled', limit: 5 })).items).toHaveLength(1)

      // Signed in at the provider still, oscar is sent back at once, and told why there is no session.
      await page.getByRole('link', { name: `Sign in with ${new URL(idp.issuer).host}` }).click()
      await page.getByRole('alert').getByText('user "oscar" is disabled').waitFor()

      // Someone the provider knows but skillplane gives no role sees why on the sign-in page.
      const other = await (await browser.newContext()).newPage()
      await other.goto(server.url)
      await other.getByRole('link', { name: `Sign in with ${new URL(idp.issuer).host}` }).click()
      await other.locator('input[name="login"]').fill('carol')
      await other.getByRole('button', { name: 'Sign in' }).click()
      await other.getByRole('alert').getByText('Carol Nobody has no skillplane role').waitFor()
    })
  })
})
