import { freePort } from '../test-support/free-port.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSkillplane } from '../index.js'
import type { Skillplane } from '../agents/index.js'
import { startHttpServer } from '../surfaces/http/index.js'
import { databases } from '../test-support/databases.js'
import { silentLogger } from '../test-support/fixtures.js'
import { CONSOLE_CLIENT, startTestIdentityProvider, type TestIdentityProvider } from '../test-support/identity-provider.js'
import { SERVICE_CLIENT, connectInBrowser, startTestOAuthService, type TestOAuthService, serviceProvider } from '../test-support/oauth-service.js'
import { defineSkill } from '../skill/index.js'

const sqlite = databases.find((d) => d.name === 'sqlite')!

const tokenLength = defineSkill({
  key: 'svc_token_length',
  description: 'Runs with the caller’s service connection',
  class: 'safe',
  oauth: { provider: 'svc' },
  run: (_input, ctx) => ({ length: ctx.secrets.get('svc').length }),
})

// A connect link is the named person's: a browser signed in to the console as someone else may neither start nor finish it.
describe('connect links in a browser signed in to the console', () => {
  let idp: TestIdentityProvider
  let service: TestOAuthService
  let plane: Skillplane
  let server: { url: string; close(): Promise<void> }

  beforeAll(async () => {
    const port = await freePort()
    idp = await startTestIdentityProvider({ consoleRedirectUris: [`http://127.0.0.1:${port}/auth/callback`] })
    service = await startTestOAuthService()
    process.env.SP_TEST_CONSOLE_SECRET = CONSOLE_CLIENT.clientSecret
    plane = await createSkillplane({
      config: {
        skills: [tokenLength],
        auth: {
          oidc: {
            issuer: idp.issuer,
            clientId: CONSOLE_CLIENT.clientId,
            clientSecretEnv: 'SP_TEST_CONSOLE_SECRET',
            scopes: ['openid', 'profile', 'groups'],
            roles: { admin: ['sp-admins'], operator: ['sp-operators'], viewer: ['sp-viewers'] },
          },
        },
        oauth: {
          providers: { svc: serviceProvider(service, 'SVC_SECRET') },
        },
      },
      ...(await sqlite.create()),
      logger: silentLogger(),
      sync: true,
    })
    await plane.values.secrets.set('SVC_SECRET', SERVICE_CLIENT.clientSecret)
    server = await startHttpServer(plane, { host: '127.0.0.1', port })
  })
  afterAll(async () => {
    await server?.close()
    await plane?.close()
    await service?.close()
    await idp?.close()
  })

  const sessionOf = async (account: string) => {
    const login = await fetch(`${server.url}/auth/login`, { redirect: 'manual' })
    const signInCookie = login.headers.getSetCookie()[0]!.split(';')[0]!
    const back = await idp.signIn(login.headers.get('location')!, account)
    const callback = await fetch(back, { redirect: 'manual', headers: { cookie: signInCookie } })
    return callback.headers
      .getSetCookie()
      .find((c) => c.startsWith('skillplane_session='))!
      .split(';')[0]!
  }

  it('refuses another person’s browser at the link and at the callback, and connects the person’s own', async () => {
    const [alice, bob] = [await sessionOf('alice'), await sessionOf('oscar')]
    const aliceName = (await plane.people.users.get('alice'))!.name
    const link = plane.oauth.authorizationUrl('svc', aliceName, [])

    // Not signed in: to the console's sign-in first, and back to the same link.
    const anonymous = await fetch(link, { redirect: 'manual' })
    expect(anonymous.status).toBe(302)
    const signIn = new URL(anonymous.headers.get('location')!, server.url)
    expect(signIn.pathname).toBe('/auth/login')
    expect(`${server.url}${signIn.searchParams.get('returnTo')}`).toBe(link)

    const atLink = await fetch(link, { redirect: 'manual', headers: { cookie: bob } })
    expect(atLink.status).toBe(400)
    expect(await atLink.text()).toContain(`this link connects ${aliceName}&#39;s account; you are signed in as oscar`)

    // Started in alice's browser, finished in oscar's: refused, and that attempt is spent.
    const started = await fetch(link, { redirect: 'manual', headers: { cookie: alice } })
    expect(started.status).toBe(302)
    const callback = await service.approve(started.headers.get('location')!, 'alice-at-service')
    const atCallback = await fetch(callback, { redirect: 'manual', headers: { cookie: bob } })
    expect(atCallback.status).toBe(400)
    expect(await atCallback.text()).toContain(`this connection attempt connects ${aliceName}&#39;s account; you are signed in as oscar: nothing was connected`)
    expect(plane.oauth.state('svc', aliceName, []).state).toBe('needs_auth')
    expect(plane.oauth.state('svc', 'oscar', []).state).toBe('needs_auth')
    expect((await fetch(callback, { redirect: 'manual', headers: { cookie: alice } })).status).toBe(400)

    // Her own browser, start to finish.
    const back = await connectInBrowser(link, (url) => service.approve(url, 'alice-at-service'), { cookie: alice })
    expect(back.status, back.page).toBe(302)
    expect(plane.oauth.state('svc', aliceName, []).state).toBe('ready')

    // A service-account link an admin asked for works in her browser only.
    const serviceLink = plane.oauth.authorizationUrl('svc', '', [], { by: aliceName })
    const elsewhere = await fetch(serviceLink, { redirect: 'manual', headers: { cookie: bob } })
    expect(elsewhere.status).toBe(400)
    expect(await elsewhere.text()).toContain(`this link connects the service account for ${aliceName}; you are signed in as oscar`)
    expect((await fetch(serviceLink, { redirect: 'manual', headers: { cookie: alice } })).status).toBe(302)
  })
})
