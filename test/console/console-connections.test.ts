import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { createSkillplane, type Skillplane } from '../../src/index.js'
import { startHttpServer } from '../../src/surfaces/http/index.js'
import { databases } from '../../src/test-support/databases.js'
import { silentLogger, testAgents } from '../../src/test-support/fixtures.js'
import { callApi, chromiumAvailable, cspViolations, launchChromium, screenshot, signIn } from '../../src/test-support/browser.js'
import {
  SERVICE_CLIENT,
  startTestOAuthService,
  type TestOAuthService,
  whoamiSkill,
  connectInBrowser,
  serviceProvider,
} from '../../src/test-support/oauth-service.js'

const sqlite = databases.find((d) => d.name === 'sqlite')!
let serviceApi = ''

/** Asks the service's API (a resource server checking the token) whose token the connection holds. */
const whoami = whoamiSkill(() => serviceApi, {
  key: 'svc_whoami',
  title: 'Who am I at the service',
  description: 'Ask the test service whose account this connection is',
  provider: 'svc',
  scopes: ['issues:read'],
  agents: ['Helper'],
})
/** The same, with the one account an admin connects for everyone. */
const shared = whoamiSkill(() => serviceApi, {
  key: 'svc_shared',
  description: 'Ask the test service whose account the service connection is',
  provider: 'svc',
  scopes: ['issues:read'],
  account: 'service',
})

describe.runIf(chromiumAvailable())('connecting accounts from the console in Chromium', () => {
  let service: TestOAuthService
  let plane: Skillplane
  let server: { url: string; close(): Promise<void> }
  let browser: Browser
  const keys: Record<string, string> = {}
  const api = (path: string, key: string, method = 'GET', body?: unknown) => callApi(server.url, path, key, method, body)
  const open = async (key: string): Promise<Page> => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage()
    page.setDefaultTimeout(15_000)
    await signIn(page, server.url, key)
    return page
  }
  /** At the service: its own sign-in page, as `account`. */
  const atService = async (page: Page, account: string, button: 'Allow' | 'Deny' = 'Allow') => {
    await page.waitForURL((url) => url.origin === service.issuer)
    await page.locator('input[name="login"]').fill(account)
    await page.getByRole('button', { name: button }).click()
  }
  const connectionChip = (page: Page) => page.getByRole('main').locator('p.chips')
  const row = (page: Page, table: string, provider: string) => page.getByRole('table', { name: table }).locator(`tr[data-provider="${provider}"]`)

  beforeAll(async () => {
    service = await startTestOAuthService()
    serviceApi = service.api
    plane = await createSkillplane({
      config: {
        skills: [whoami, shared],
        agents: testAgents,
        oauth: {
          providers: {
            svc: serviceProvider(service, 'SVC_CLIENT_SECRET', 'Test Service'),
          },
        },
      },
      ...(await sqlite.create()),
      logger: silentLogger(),
      sync: true,
    })
    await plane.values.secrets.set('SVC_CLIENT_SECRET', SERVICE_CLIENT.clientSecret, {})
    server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    for (const [name, role] of [
      ['alice', 'admin'],
      ['oscar', 'operator'],
      ['vera', 'viewer'],
    ] as const)
      keys[name] = (await plane.people.keys.create({ name, role }, plane.now())).key
    keys.helper = (await plane.people.keys.create({ name: 'helper-bot', role: 'agent', agentId: plane.agents.resolve('helper')! }, plane.now())).key
    browser = await launchChromium()
  })
  afterAll(async () => {
    // Everything the pages did stayed within the console's Content-Security-Policy.
    expect(cspViolations).toEqual([])
    await browser?.close()
    await server?.close()
    await plane?.close()
    await service?.close()
  })

  it('connects from a skill that needs it, runs it, shows no token, and is back in needs_auth after Disconnect', async () => {
    const page = await open(keys.oscar!)
    await page.goto(`${server.url}/skills/svc_whoami`)
    await connectionChip(page).getByText('needs auth').waitFor()
    // Running it now is refused, and the result offers the same Connect.
    await page.getByRole('button', { name: 'Invoke' }).click()
    await expect.poll(() => page.getByTestId('invoke-result').textContent()).toContain('needs auth')
    await page.getByTestId('invoke-result').getByRole('button', { name: 'Connect svc', exact: true }).waitFor()
    await screenshot(page, 'skill-needs-connection')

    await connectionChip(page).getByRole('button', { name: 'Connect svc', exact: true }).click()
    await atService(page, 'oscar-at-svc')
    // Back on the page that pressed Connect, connected.
    await page.waitForURL(`${server.url}/skills/svc_whoami?connected=svc`)
    await page.getByTestId('connected-notice').getByText('Connected to').waitFor()
    expect(await page.getByTestId('connected-notice').textContent()).toContain('Connected to svc.')
    await connectionChip(page).getByText('ready').waitFor()
    expect(await connectionChip(page).getByRole('button').count()).toBe(0)
    await page.getByRole('button', { name: 'Invoke' }).click()
    await expect.poll(() => page.getByTestId('invoke-result').textContent()).toContain('"sub": "oscar-at-svc"')
    expect(await page.getByTestId('invoke-result').textContent()).toContain('"scope": "issues:read"')
    await screenshot(page, 'skill-connected')

    // The connection is oscar's, made through the flow; the audit names it, never a token.
    const tokens = await plane.oauth.token('svc', 'oscar', ['issues:read'])
    const [event] = (await plane.audit.events.list({ kind: 'connection.connected', limit: 5 })).items
    expect(event).toMatchObject({ subject: 'connection:svc', details: { account: 'person', subject: 'oscar', scopes: ['issues:read'] } })
    expect(JSON.stringify(event)).not.toContain(tokens.accessToken)

    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Connections' }).click()
    const mine = row(page, 'Your connections', 'svc')
    await mine.getByText('ready').waitFor()
    await mine.getByText('issues:read').waitFor()
    expect(await mine.getByRole('button', { name: 'Reconnect Test Service' }).isVisible()).toBe(true)
    // Nothing on the page, nor what it loaded, carries a token.
    const html = await page.content()
    for (const secret of [tokens.accessToken, tokens.refreshToken!]) expect(html).not.toContain(secret)
    expect(JSON.stringify((await api('/api/connections', keys.oscar!)).body)).not.toContain(tokens.accessToken)
    // Not an admin: the service account's connection is shown, not offered.
    expect(await page.getByRole('table', { name: 'Service connections' }).getByRole('button').count()).toBe(0)
    expect(await page.getByRole('table', { name: 'Who is connected' }).count()).toBe(0)
    await screenshot(page, 'connections')

    const revokedBefore = service.revocations
    await mine.getByRole('button', { name: 'Disconnect Test Service' }).click()
    await mine.getByText('not connected').waitFor()
    expect(await mine.getByRole('button', { name: 'Connect Test Service', exact: true }).isVisible()).toBe(true)
    // Revoked at the service too (RFC 7009), and gone here.
    expect(service.revocations).toBeGreaterThan(revokedBefore)
    expect((await api('/api/connections', keys.oscar!)).body.connections).toEqual([])

    await page.goto(`${server.url}/skills/svc_whoami`)
    await connectionChip(page).getByText('needs auth').waitFor()
    await connectionChip(page).getByRole('button', { name: 'Connect svc', exact: true }).waitFor()
    await page.getByRole('button', { name: 'Invoke' }).click()
    await expect.poll(() => page.getByTestId('invoke-result').textContent()).toContain('needs auth')
    expect(await page.getByTestId('invoke-result').textContent()).not.toContain('oscar-at-svc')
  })

  it('shows the provider’s refusal and keeps nothing (a viewer connects their own too)', async () => {
    const page = await open(keys.vera!)
    await page.goto(`${server.url}/connections`)
    await row(page, 'Your connections', 'svc').getByRole('button', { name: 'Connect Test Service', exact: true }).click()
    await atService(page, 'vera-at-svc', 'Deny')
    await page.getByRole('heading', { name: 'Connection not made' }).waitFor()
    expect(await page.locator('#reason').textContent()).toContain('the person did not allow it')
    await page.getByRole('link', { name: 'Back to your connections' }).click()
    await row(page, 'Your connections', 'svc').getByText('not connected').waitFor()
    expect((await api('/api/connections', keys.vera!)).body.connections).toEqual([])
  })

  it('lets admins connect the service account, see who is connected to what, and disconnect anyone', async () => {
    // Oscar connects his own (outside the browser: the link, the service's consent, the callback).
    const link = (await api('/api/connections/svc/authorize', keys.oscar!, 'POST', {})).body.authorizationUrl as string
    expect((await connectInBrowser(link, (url) => service.approve(url, 'oscar-at-svc'))).status).toBe(302)

    const page = await open(keys.alice!)
    await page.goto(`${server.url}/skills/svc_shared`)
    await connectionChip(page).getByText('needs auth').waitFor()
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Connections' }).click()
    const serviceRow = row(page, 'Service connections', 'svc')
    await serviceRow.getByText('not connected').waitFor()
    await serviceRow.getByRole('button', { name: 'Connect Test Service (service account)' }).click()
    await atService(page, 'ops-robot')
    await page.waitForURL(`${server.url}/connections?connected=svc`)
    await serviceRow.getByText('ready').waitFor()
    // Alice has none of her own; everyone's lists oscar's.
    await row(page, 'Your connections', 'svc').getByText('not connected').waitFor()
    const oscars = page.getByRole('table', { name: 'Who is connected' }).locator('tr[data-person="oscar"]')
    await oscars.getByText('ready').waitFor()
    await screenshot(page, 'connections-admin')

    // The service skill now runs for anyone, as the service account.
    expect((await api('/api/skills/svc_shared/invoke', keys.oscar!, 'POST', { input: {} })).body).toMatchObject({ ok: true, data: { sub: 'ops-robot' } })
    await oscars.getByRole('button', { name: 'Disconnect Test Service for oscar' }).click()
    await page.getByRole('table', { name: 'Who is connected' }).waitFor({ state: 'detached' })
    await page.getByText('Nobody has connected an account yet.').waitFor()
    expect((await api('/api/connections', keys.oscar!)).body.connections).toEqual([expect.objectContaining({ account: 'service', state: 'ready' })])
    const [disconnected] = (await plane.audit.events.list({ kind: 'connection.disconnected', limit: 1 })).items
    expect(disconnected).toMatchObject({ actor: { name: 'alice' }, details: { subject: 'oscar' } })

    await serviceRow.getByRole('button', { name: 'Disconnect Test Service (service account)' }).click()
    await serviceRow.getByText('not connected').waitFor()
    expect((await api('/api/skills/svc_shared/invoke', keys.oscar!, 'POST', { input: {} })).status).toBe(424)
  })

  it('offers an agent key no connections: it acts for no person', async () => {
    const page = await open(keys.helper!)
    await page.goto(`${server.url}/skills/svc_whoami`)
    await connectionChip(page).getByText('needs auth').waitFor()
    expect(
      await page
        .getByRole('main')
        .getByRole('button', { name: /Connect/ })
        .count(),
    ).toBe(0)
    expect(await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Connections' }).count()).toBe(0)
    await page.goto(`${server.url}/connections`)
    await page.getByRole('heading', { name: 'Not here' }).waitFor()
  })
})
