import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import type { LanguageModelV3Prompt } from '@ai-sdk/provider'
import { MockLanguageModelV3 } from 'ai/test'
import { createSkillplane, type Skillplane } from '../../src/index.js'
import { startHttpServer } from '../../src/surfaces/http/index.js'
import { databases } from '../../src/test-support/databases.js'
import { silentLogger, testAgents, testSkills } from '../../src/test-support/fixtures.js'
import { callsTool, says, streamed } from '../../src/test-support/mock-model.js'
import { chromiumAvailable, cspViolations, launchChromium, screenshot, signIn, callApi } from '../../src/test-support/browser.js'

const sqlite = databases.find((d) => d.name === 'sqlite')!

const asked = (prompt: LanguageModelV3Prompt): string =>
  prompt
    .filter((m) => m.role === 'user')
    .flatMap((m) => m.content)
    .map((part) => (part.type === 'text' ? part.text : ''))
    .join(' ')

describe.runIf(chromiumAvailable())("the web console's agents and runs in Chromium", () => {
  let plane: Skillplane
  let server: { url: string; close(): Promise<void> }
  let browser: Browser
  const keys: Record<string, string> = {}
  // The live run's model waits here before its second step: the test sees step 1 on the page first.
  let release = () => {}
  const released = new Promise<void>((resolve) => (release = resolve))
  // The model does what the prompt says: call echo (or write_thing), then answer once the call is done.
  const model = new MockLanguageModelV3({
    doStream: async ({ prompt }) => {
      const text = asked(prompt)
      if (!prompt.some((m) => m.role === 'tool')) {
        return streamed(text.includes('write') ? callsTool('write_thing', { value: 'from the run' }) : callsTool('echo', { message: text }))
      }
      if (text.includes('hold')) await released
      return streamed(says('all done'))
    },
  })
  const api = (path: string, key: string, body?: unknown) => callApi(server.url, path, key, body === undefined ? 'GET' : 'POST', body)
  const open = async (key: string): Promise<Page> => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage()
    page.setDefaultTimeout(15_000)
    await signIn(page, server.url, key)
    return page
  }
  const nav = (page: Page) => page.getByRole('navigation', { name: 'Console' })

  beforeAll(async () => {
    plane = await createSkillplane({
      config: { skills: testSkills(), agents: [{ ...testAgents![0]!, model }, testAgents![1]!] },
      ...(await sqlite.create()),
      logger: silentLogger(),
      sync: true,
    })
    server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    for (const [name, role, agentId] of [
      ['alice', 'admin'],
      ['oscar', 'operator'],
      ['vera', 'viewer'],
      ['helper-bot', 'agent', 'helper'],
    ] as const)
      keys[name] = (await plane.people.keys.create({ name, role, agentId }, plane.now())).key
    browser = await launchChromium()
  })
  afterAll(async () => {
    // Everything the pages did stayed within the console's Content-Security-Policy.
    expect(cspViolations).toEqual([])
    release()
    await browser?.close()
    await server?.close()
    await plane?.close()
  })

  it('starts a run from the agent page and shows its steps as they happen, each tool call linked to its audit row', async () => {
    const page = await open(keys.oscar!)
    await nav(page).getByRole('link', { name: 'Agents' }).click()
    const helper = page.locator('tr[data-agent="helper"]')
    await helper.waitFor()
    expect(await helper.textContent()).toContain('mock-provider/mock-model-id')
    expect(await helper.textContent()).toContain('also helper, h')
    const bound = helper.getByRole('list', { name: 'Skills bound to Helper' })
    expect(await bound.getByRole('link').allTextContents()).toEqual(['discover_skills', 'echo', 'parent_call', 'wipe_things', 'write_thing'])
    expect(await bound.getByRole('listitem').filter({ hasText: 'write_thing' }).textContent()).toContain('mutating')
    expect(await page.locator('tr[data-agent="other"]').textContent()).toContain('no model')
    await screenshot(page, 'agents')

    await helper.getByRole('link', { name: 'Helper' }).click()
    await page.getByRole('table', { name: 'Bindings' }).waitFor()
    await page.getByLabel('Prompt').fill('echo this, then hold')
    await page.getByRole('button', { name: 'Start run' }).click()
    await page.waitForURL(/\/runs\/[0-9A-Z]{26}$/)
    const runId = page.url().split('/').pop()!

    // The first step is on the page while the model holds its second one back.
    const first = page.locator('article[data-kind="tool"]')
    await first.waitFor()
    expect(await first.getAttribute('data-status')).toBe('ok')
    expect(await first.getByLabel('Arguments of step 2').textContent()).toContain('"message": "echo this, then hold"')
    expect(await first.getByLabel('Outcome of step 2').textContent()).toContain('"count": 1')
    expect(await page.getByTestId('run-status').getAttribute('data-status')).toBe('running')
    expect(await page.locator('article[data-kind="text"]').count()).toBe(0)
    expect(await page.locator('dl.facts').first().textContent()).toContain('oscar')
    await screenshot(page, 'run-live')

    release()
    await page.locator('[data-testid="run-status"][data-status="completed"]').waitFor()
    expect(await page.locator('article[data-kind="text"]').textContent()).toContain('all done')
    expect(await page.getByTestId('run-output').textContent()).toBe('all done')
    expect(await page.getByTestId('live').textContent()).toBe('ended')
    await screenshot(page, 'run')

    const stored = await api(`/api/runs/${runId}`, keys.oscar!)
    expect(stored.body).toMatchObject({ status: 'completed', requester: { name: 'oscar' } })
    const callId = stored.body.steps.find((s: { kind: string }) => s.kind === 'tool').callId as string
    await first.getByRole('link', { name: /audit row/ }).click()
    await page.waitForURL(`**/audit/${callId}`)
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toContain('echo')
    expect(await page.getByLabel('Input').textContent()).toContain('echo this, then hold')
  })

  it('links a paused tool call to the approvals inbox, and follows the run again once it is decided', async () => {
    const started = await api('/api/agents/helper/runs', keys.oscar!, { prompt: 'write it down', wait: false })
    expect(started.status).toBe(202)
    const page = await open(keys.oscar!)
    await page.goto(`${server.url}/runs/${started.body.id}`)
    const paused = page.locator('article[data-kind="tool"][data-status="awaiting_approval"]')
    await paused.waitFor()
    await page.locator('[data-testid="run-status"][data-status="awaiting_approval"]').waitFor()
    expect(await page.getByRole('button', { name: 'Follow again' }).count()).toBe(1)
    await screenshot(page, 'run-paused')
    await paused.getByRole('link', { name: 'waiting in the approvals inbox' }).click()
    const card = page.locator('article[data-status="pending"]', { hasText: 'write_thing' })
    await card.waitFor()
    const approvalId = await card.getAttribute('data-approval')
    await page.goBack()
    await page.locator('[data-testid="run-status"][data-status="awaiting_approval"]').waitFor()
    // Decided elsewhere: the run goes on, and the open page follows it to its end without a click.
    expect((await api(`/api/approvals/${approvalId}/approve`, keys.alice!, {})).status).toBe(200)
    await page.locator('[data-testid="run-status"][data-status="completed"]').waitFor()
    await page.locator('article[data-kind="tool"][data-status="ok"]').waitFor()
  })

  it('shows an admin the policy in effect for each bound skill, decided by the server, and an operator none', async () => {
    const page = await open(keys.alice!)
    await page.goto(`${server.url}/agents/helper`)
    const bindings = page.getByRole('table', { name: 'Bindings' })
    await bindings.getByRole('columnheader', { name: 'Policy for this agent' }).waitFor()
    const row = (skill: string) => bindings.getByRole('row').filter({ has: page.getByRole('link', { name: skill, exact: true }) })
    await expect.poll(() => row('echo').textContent()).toContain('ALWAYS')
    expect(await row('write_thing').textContent()).toContain('ASK')
    expect(await row('wipe_things').textContent()).toContain('ASK')
    const operator = await open(keys.oscar!)
    await operator.goto(`${server.url}/agents/helper`)
    await operator.getByRole('table', { name: 'Bindings' }).getByRole('link', { name: 'echo', exact: true }).waitFor()
    expect(await operator.getByRole('columnheader', { name: 'Policy for this agent' }).count()).toBe(0)
  })

  it('test-runs the agent with an expected tool and shows the verdict and the run it made', async () => {
    const page = await open(keys.oscar!)
    await page.goto(`${server.url}/agents/helper`)
    await page.getByLabel('Input').fill('a test of echo')
    await page.getByLabel('Expected tool (optional)').selectOption('echo')
    await page.getByRole('button', { name: 'Run test' }).click()
    const verdict = page.getByTestId('verdict')
    await verdict.waitFor()
    expect(await verdict.textContent()).toContain('pass')
    expect(await verdict.textContent()).toContain('echo ran and succeeded')
    // The runs below list the test run too, newest first.
    const runs = page.getByRole('table', { name: 'Runs' })
    await expect.poll(() => runs.locator('tbody tr').count()).toBe(3)
    expect(await runs.locator('tbody tr').first().textContent()).toContain('test')
    await screenshot(page, 'agent')
    await verdict.getByRole('link', { name: 'The test run' }).click()
    await page.locator('[data-testid="run-status"][data-status="completed"]').waitFor()
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain('test run')
  })

  it('shows a viewer the agents but no run or test-run controls, and an agent key only its own agent', async () => {
    const page = await open(keys.vera!)
    await nav(page).getByRole('link', { name: 'Agents' }).click()
    await page.locator('tr[data-agent="helper"]').getByRole('link', { name: 'Helper' }).click()
    await page.getByRole('table', { name: 'Bindings' }).waitFor()
    expect(await page.getByRole('button', { name: 'Start run' }).count()).toBe(0)
    expect(await page.getByRole('button', { name: 'Run test' }).count()).toBe(0)
    expect(await page.getByRole('table', { name: 'Runs' }).count()).toBe(0)
    // A viewer can't read runs: the run page isn't there for it.
    const { items } = (await api('/api/agents/helper/runs', keys.oscar!)).body
    await page.goto(`${server.url}/runs/${items[0].id}`)
    await page.getByRole('heading', { name: 'Not here' }).waitFor()
    await page.goto(`${server.url}/agents/helper`)
    await page.getByRole('table', { name: 'Bindings' }).waitFor()
    await screenshot(page, 'agent-viewer')

    const bot = await open(keys['helper-bot']!)
    await nav(bot).getByRole('link', { name: 'Agents' }).click()
    await bot.locator('tr[data-agent="helper"]').waitFor()
    expect(await bot.locator('tr[data-agent]').count()).toBe(1)
  })
})
