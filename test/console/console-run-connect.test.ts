import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { createSkillplane, type Skillplane } from '../../src/index.js'
import { startHttpServer } from '../../src/surfaces/http/index.js'
import { databases } from '../../src/test-support/databases.js'
import { silentLogger, testAgents, testSkills } from '../../src/test-support/fixtures.js'
import { callsTool, says, scripted } from '../../src/test-support/mock-model.js'
import { SERVICE_CLIENT, startTestOAuthService, type TestOAuthService, whoamiSkill, serviceProvider } from '../../src/test-support/oauth-service.js'
import { chromiumAvailable, cspViolations, launchChromium, screenshot, signIn, callApi } from '../../src/test-support/browser.js'

const sqlite = databases.find((d) => d.name === 'sqlite')!

describe.runIf(chromiumAvailable())('a run waiting for a connection, in the console in Chromium', () => {
  let service: TestOAuthService
  let plane: Skillplane
  let server: { url: string; close(): Promise<void> }
  let browser: Browser
  let oscar = ''

  beforeAll(async () => {
    service = await startTestOAuthService()
    const profile = whoamiSkill(() => service.api, { key: 'test_profile', provider: 'test', agents: ['Helper'] })
    plane = await createSkillplane({
      config: {
        skills: [...testSkills(), profile],
        agents: [{ ...testAgents![0]!, model: scripted(callsTool('test_profile', {}), says('you are oscar there')) }, testAgents![1]!],
        oauth: {
          providers: {
            test: serviceProvider(service, 'TEST_CLIENT_SECRET', 'Test Service'),
          },
        },
      },
      ...(await sqlite.create()),
      logger: silentLogger(),
      sync: true,
    })
    await plane.values.secrets.set('TEST_CLIENT_SECRET', SERVICE_CLIENT.clientSecret, {})
    server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    oscar = (await plane.people.keys.create({ name: 'oscar', role: 'operator' }, plane.now())).key
    browser = await launchChromium()
  })
  afterAll(async () => {
    expect(cspViolations).toEqual([])
    await browser?.close()
    await server?.close()
    await plane?.close()
    await service?.close()
  })

  it('offers the link on the run page; the person connects there, comes back to the run, and sees it go on', async () => {
    const started = await callApi(server.url, '/api/agents/helper/runs', oscar, 'POST', { prompt: 'who am I at the service?' })
    expect(started.body).toMatchObject({ status: 'needs_auth', pending: [{ provider: 'test', authorizationUrl: expect.any(String) }] })
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage()
    page.setDefaultTimeout(15_000)
    await signIn(page, server.url, oscar)
    await page.goto(`${server.url}/runs/${started.body.id}`)
    await page.locator('[data-testid="run-status"][data-status="needs_auth"]').waitFor()
    await page.locator('article[data-kind="tool"][data-status="needs_auth"]').waitFor()
    await screenshot(page, 'run-needs-auth')
    await page.getByRole('link', { name: 'Connect test' }).click()
    // At the service: sign in and allow.
    await page.locator('input[name="login"]').fill('oscar')
    await page.getByRole('button', { name: 'Allow' }).click()
    // Back on the run's page, which follows it to its end.
    await page.waitForURL(new RegExp(`/runs/${started.body.id}`))
    await page.locator('[data-testid="run-status"][data-status="completed"]').waitFor()
    await page.locator('article[data-kind="tool"][data-status="ok"]').waitFor()
    expect(await page.locator('article[data-kind="tool"]').textContent()).toContain('oscar')
  })
})
