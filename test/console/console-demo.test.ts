import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { createSkillplane, type Skillplane } from '../../src/index.js'
import { findConfigFile, loadConfigFile } from '../../src/config/index.js'
import { startHttpServer } from '../../src/surfaces/http/index.js'
import { databases } from '../../src/test-support/databases.js'
import { silentLogger } from '../../src/test-support/fixtures.js'
import { chromiumAvailable, cspViolations, launchChromium, screenshot, signIn, callApi } from '../../src/test-support/browser.js'
import { startEdge, waitFor } from '../edges/edge-harness.js'

const sqlite = databases.find((d) => d.name === 'sqlite')!
const EXAMPLES = findConfigFile(join(import.meta.dirname, '../../examples/skillplane.config.ts'))!

/**
 * The demo `npm start` serves (examples/skillplane.config.ts: code skills, instruction skills, a
 * pack, an MCP server, HTTP and OpenAPI skills) with an edge's host skills, as each role sees it.
 */
describe.runIf(chromiumAvailable())('the demo console in Chromium', () => {
  let plane: Skillplane
  let server: { url: string; close(): Promise<void> }
  let browser: Browser
  const keys: Record<string, string> = {}
  const problems = new Map<Page, string[]>()
  const openAiKey = process.env.OPENAI_API_KEY
  const api = (path: string, key: string, method = 'GET', body?: unknown) => callApi(server.url, path, key, method, body)
  /** A fresh tab whose failures are collected: thrown errors, console errors (a refused request logs one). */
  const tab = async (): Promise<Page> => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage()
    page.setDefaultTimeout(15_000)
    const seen: string[] = []
    problems.set(page, seen)
    page.on('pageerror', (error) => seen.push(`${page.url()}: page error: ${error.message}`))
    page.on('console', (message) => {
      if (message.type() === 'error') seen.push(`${page.url()}: console error: ${message.text()}`)
    })
    page.on('response', (response) => {
      if (response.status() >= 400 && response.url().includes('/api/')) seen.push(`${page.url()}: ${response.status()} from ${response.url()}`)
    })
    // API requests under way (event streams stay open: they are not waited for).
    const pending = new Set<unknown>()
    inFlight.set(page, pending)
    page.on('request', (request) => {
      if (request.url().includes('/api/') && !request.url().includes('/events')) pending.add(request)
    })
    page.on('requestfinished', (request) => pending.delete(request))
    page.on('requestfailed', (request) => pending.delete(request))
    return page
  }
  const inFlight = new Map<Page, Set<unknown>>()
  /** Go to a console path as a link would (no reload), and wait until every request it made has answered. */
  const visit = async (page: Page, path: string) => {
    // A string, run in the page: this project's TypeScript has no DOM library.
    await page.evaluate(`history.pushState(null, '', ${JSON.stringify(path)}); dispatchEvent(new PopStateEvent('popstate'))`)
    await expect.poll(() => inFlight.get(page)!.size).toBe(0)
  }
  const open = async (key: string): Promise<Page> => {
    const page = await tab()
    await signIn(page, server.url, key)
    return page
  }
  /** What went wrong in a tab: collected errors, and a page the console's error boundary replaced. */
  const problemsOf = async (page: Page) => [
    ...problems.get(page)!,
    ...(await page.getByTestId('page-crashed').allTextContents()).map((text) => `${page.url()}: error boundary: ${text}`),
  ]
  const nav = (page: Page) => page.getByRole('navigation', { name: 'Console' })

  beforeAll(async () => {
    // The depot is one of the config's services, which only `serve` starts: no page here calls it.
    // Fleet Autonomy runs on OpenAI: without its key it can't run, which the console must say.
    delete process.env.OPENAI_API_KEY
    plane = await createSkillplane({
      config: await loadConfigFile(EXAMPLES),
      configSource: EXAMPLES,
      ...(await sqlite.create()),
      logger: silentLogger(),
      sync: true,
    })
    server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    for (const [name, role, agentId] of [
      ['alice', 'admin'],
      ['bob', 'admin'],
      ['oscar', 'operator'],
      ['vera', 'viewer'],
      ['notes-bot', 'agent', 'notes-assistant'],
    ] as const)
      keys[name] = (await plane.people.keys.create({ name, role, agentId }, plane.now())).key
    browser = await launchChromium()
  })
  afterAll(async () => {
    if (openAiKey === undefined) delete process.env.OPENAI_API_KEY
    else process.env.OPENAI_API_KEY = openAiKey
    // Everything the pages did stayed within the console's Content-Security-Policy.
    expect(cspViolations).toEqual([])
    await browser?.close()
    await server?.close()
    await plane?.close()
  })

  it("opens every skill's page, and every other page, as each role and an agent's key, with no error", async () => {
    // An edge online, as `npm start` has one: its host skills are listed too.
    const enrolled = await plane.sources.edges.enroll({ name: 'local', labels: {} }, { id: 'test', name: 'test' })
    if (!enrolled.ok) throw new Error(enrolled.message)
    const edge = startEdge([server.url], enrolled.token)
    await waitFor(() => plane.sources.edges.get('local')?.online === true, 15_000).catch(() => {
      throw new Error(`the edge did not come online: ${edge.output()}`)
    })
    const all = (await api('/api/skills', keys.alice!)).body.skills as Array<{ key: string; source: string; scope: string; folder?: string }>
    // Every kind of skill the demo has is there, instruction skills and host skills among them.
    expect(new Set(all.map((s) => s.source))).toEqual(new Set(['code', 'agent-skill', 'pack', 'mcp', 'http', 'edge']))
    expect(all.filter((s) => s.folder).length).toBe(3)
    expect(all.filter((s) => s.scope === 'host').length).toBeGreaterThan(0)
    const seen: Record<string, number> = {}
    const walk = async (name: string, key: string) => {
      const page = await open(key)
      // Instruction skills are listed with their folder.
      const skills = (await api('/api/skills', key)).body.skills as Array<{ key: string; folder?: string }>
      for (const skill of skills) {
        await visit(page, `/skills/${skill.key}`)
        // Drawn (or replaced by the error boundary), once every request the page made has answered.
        await page.getByRole('heading', { level: 1 }).filter({ hasText: skill.key }).or(page.getByTestId('page-crashed')).waitFor()
        await expect.poll(() => inFlight.get(page)!.size).toBe(0)
        expect(await problemsOf(page), `${name} on ${skill.key}`).toEqual([])
        if (skill.folder) await page.getByText('An instruction skill').waitFor()
        else await page.getByRole('button', { name: 'Invoke' }).waitFor()
      }
      // Every page its navigation offers, and the page of each agent it may see.
      const pages = await nav(page)
        .getByRole('link')
        .evaluateAll((links: any[]) => links.map((a) => String(a.getAttribute('href'))))
      const agents = ((await api('/api/agents', key)).body.agents as Array<{ id: string }>).map((a) => `/agents/${a.id}`)
      expect(pages.length).toBeGreaterThanOrEqual(3)
      for (const path of [...pages, ...agents]) {
        await visit(page, path)
        await page.getByRole('heading', { level: 1 }).first().waitFor()
        await expect.poll(() => inFlight.get(page)!.size).toBe(0)
        expect(await problemsOf(page), `${name} on ${path}`).toEqual([])
      }
      // A direct load of a page, as a shared link opens it.
      await page.goto(`${server.url}/skills/${skills.at(-1)!.key}`)
      await page
        .getByRole('heading', { level: 1 })
        .filter({ hasText: skills.at(-1)!.key })
        .waitFor()
      await expect.poll(() => inFlight.get(page)!.size).toBe(0)
      seen[name] = skills.length
      expect(await problemsOf(page)).toEqual([])
    }
    // Two tabs at a time: each walks its key's pages one by one.
    const roles = Object.entries(keys).filter(([name]) => name !== 'bob')
    for (let i = 0; i < roles.length; i += 2) await Promise.all(roles.slice(i, i + 2).map(([name, key]) => walk(name, key)))
    expect(seen.alice).toBe(all.length)
    // The agent's key sees its own skills, the instruction skills it may activate among them.
    expect(seen['notes-bot']).toBeLessThan(all.length)
    edge.child.kill('SIGTERM')
  }, 180_000)

  it('signs in with no failed request first, and its hint is text, not markup', async () => {
    const page = await tab()
    await page.goto(server.url)
    await page.getByLabel('API key').waitFor()
    await page.waitForLoadState('networkidle')
    const hint = page.getByTestId('key-hint')
    expect(await hint.textContent()).toBe('Kept in this browser tab until you sign out or close it. skillplane keys create makes one.')
    expect(await hint.locator('code').textContent()).toBe('skillplane keys create')
    expect(await problemsOf(page)).toEqual([])
    await page.getByLabel('API key').fill(keys.vera!)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await expect.poll(() => page.getByTestId('who').textContent()).toBe('vera · viewer')
    // A wrong key is the one 401 a person should meet, and it is said in words.
    const other = await tab()
    await other.goto(server.url)
    await other.getByLabel('API key').fill('sk_not_a_key')
    await other.getByRole('button', { name: 'Sign in' }).click()
    await expect.poll(() => other.getByRole('alert').textContent()).toBe('That key is unknown or revoked.')
  })

  it("shows the console's not-found page for an unknown address, and keeps the API's JSON for programs", async () => {
    const page = await open(keys.alice!)
    for (const path of ['/nope', '/skills/x/y/z', '/agents/fleet-autonomy/extra']) {
      const response = await page.goto(server.url + path)
      await page.getByRole('heading', { name: 'Not here' }).waitFor()
      expect(await nav(page).getByRole('link', { name: 'Skills' }).count(), path).toBe(1)
      if (path === '/nope') expect(response!.status()).toBe(404)
    }
    await screenshot(page, 'not-found')
    // Before signing in too: the sign-in page, not JSON.
    const stranger = await tab()
    await stranger.goto(server.url + '/nope')
    await stranger.getByLabel('API key').waitFor()
    // Programs still get the API's JSON 404, and so does anyone asking under /api.
    const plain = await fetch(server.url + '/nope')
    expect(plain.status).toBe(404)
    expect(await plain.json()).toMatchObject({ ok: false, error: { code: 'not_found' } })
    const underApi = await fetch(server.url + '/api/nope', { headers: { accept: 'text/html', authorization: `Bearer ${keys.alice}` } })
    expect(underApi.headers.get('content-type')).toContain('application/json')
  })

  it("says an agent can't run before anyone presses Start, and why, until its key is set", async () => {
    expect((await api('/api/agents', keys.oscar!)).body.agents).toContainEqual(
      expect.objectContaining({
        id: 'fleet-autonomy',
        available: false,
        unavailableReason: 'agent "Fleet Autonomy": the environment variable OPENAI_API_KEY holding the openai API key is not set (model openai/gpt-4.1-mini)',
      }),
    )
    const page = await open(keys.oscar!)
    await nav(page).getByRole('link', { name: 'Agents' }).click()
    const row = page.locator('tr[data-agent="fleet-autonomy"]')
    await expect.poll(() => row.getByTestId('agent-unavailable').textContent()).toContain("can't run")
    expect(await row.getByTestId('agent-unavailable').textContent()).toContain('OPENAI_API_KEY')
    await screenshot(page, 'agents-unavailable')
    await row.getByRole('link', { name: 'Fleet Autonomy' }).click()
    await expect.poll(() => page.getByTestId('agent-unavailable').first().textContent()).toContain('OPENAI_API_KEY')
    await page.getByLabel('Prompt').fill('check the disks')
    expect(await page.getByRole('button', { name: 'Start run' }).isDisabled()).toBe(true)
    expect(await page.locator('form', { hasText: 'Start a run' }).textContent()).toContain(
      'It can\'t run: agent "Fleet Autonomy": the environment variable OPENAI_API_KEY',
    )

    // With the key set, the same pages offer the run.
    process.env.OPENAI_API_KEY = 'sk-test-not-a-real-key'
    try {
      await page.reload()
      await page.getByLabel('Prompt').fill('check the disks')
      await expect.poll(() => page.getByRole('button', { name: 'Start run' }).isDisabled()).toBe(false)
      expect(await page.getByTestId('agent-unavailable').count()).toBe(0)
      const agents = (await api('/api/agents', keys.oscar!)).body.agents as Array<{ id: string }>
      expect(agents.find((a) => a.id === 'fleet-autonomy')).toMatchObject({ available: true, unavailableReason: null })
    } finally {
      delete process.env.OPENAI_API_KEY
    }
  })

  it('labels the form’s array buttons in words, and refreshes the recent calls after an invoke', async () => {
    const page = await open(keys.alice!)
    await page.goto(server.url + '/skills/calculate')
    await page.getByRole('heading', { name: 'Recent calls' }).waitFor()
    expect(await page.getByRole('table', { name: 'Recent calls' }).locator('tbody tr').count()).toBe(0)
    // Two operands at least: the form starts with two, and a third is added.
    expect(await page.getByRole('button', { name: 'Remove' }).count()).toBe(2)
    await page.getByRole('button', { name: 'Add Item' }).click()
    expect(await page.getByRole('button', { name: 'Remove' }).count()).toBe(3)
    expect(await page.getByRole('button', { name: 'Move up' }).count()).toBe(3)
    expect(await page.getByRole('button', { name: 'Move down' }).count()).toBe(3)
    // Every button in the form says what it does, in text a reader sees and a screen reader says.
    const buttons = await page
      .locator('.invoke form button')
      .evaluateAll((elements: any[]) => elements.map((el) => ({ text: String(el.textContent).trim(), label: el.getAttribute('aria-label') ?? el.textContent })))
    expect(buttons.filter((b) => !b.text || !b.label)).toEqual([])
    await page.locator('#root_operation').selectOption('add')
    await page.locator('#root_operands_0').fill('2')
    await page.locator('#root_operands_1').fill('3')
    await page.locator('#root_operands_2').fill('4')
    await page.getByRole('button', { name: 'Remove' }).nth(2).click()
    await screenshot(page, 'skill-array-form')
    await page.getByRole('button', { name: 'Invoke' }).click()
    await expect.poll(() => page.getByTestId('invoke-result').textContent()).toContain('"result": 5')
    // The call just made is listed without a reload.
    const calls = page.getByRole('table', { name: 'Recent calls' }).locator('tbody tr')
    await expect.poll(() => calls.count()).toBe(1)
    expect(await calls.first().textContent()).toContain('alice')
  })

  it('says host (as the API and the filter do) for host skills in the skills table', async () => {
    const page = await open(keys.alice!)
    await page.getByLabel('scope').selectOption('host')
    const rows = page.locator('.skills-table .grid-body [role="row"]')
    // The table re-renders after the filter applies: wait for the filtered rows, not the first rows seen.
    const scopes = async () => new Set(await rows.evaluateAll((all: any[]) => all.map((row) => row.querySelectorAll('[role="cell"]')[2].textContent)))
    await expect.poll(scopes).toEqual(new Set(['host']))
    await page.getByLabel('scope').selectOption('manager')
    await expect.poll(scopes).toEqual(new Set(['manager']))
  })

  it('says in each greyed policy cell why the subject has no access', async () => {
    const page = await open(keys.alice!)
    await page.goto(server.url + '/policies')
    const cell = (name: RegExp) => page.getByRole('button', { name })
    // A viewer may not run a mutating skill; Fleet Autonomy is not bound to the notes.
    await expect
      .poll(() =>
        cell(/^notes_add for viewers:/)
          .getByTestId('no-access-why')
          .textContent(),
      )
      .toBe('role too low')
    expect(
      await cell(/^notes_add for Fleet Autonomy:/)
        .getByTestId('no-access-why')
        .textContent(),
    ).toBe('not bound')
    expect(
      await cell(/^notes_add for operators:/)
        .getByTestId('no-access-why')
        .count(),
    ).toBe(0)
    await screenshot(page, 'policies-no-access')
    expect((await api('/api/skills/notes_list', keys.alice!, 'PATCH', { enabled: false })).status).toBe(200)
    try {
      await page.reload()
      await expect
        .poll(() =>
          cell(/^notes_list for operators:/)
            .getByTestId('no-access-why')
            .textContent(),
        )
        .toBe('skill disabled')
    } finally {
      expect((await api('/api/skills/notes_list', keys.alice!, 'PATCH', { enabled: true })).status).toBe(200)
    }
  })

  it('puts even ticks on the audit chart', async () => {
    for (let i = 0; i < 7; i++)
      expect((await api('/api/skills/calculate/invoke', keys.oscar!, 'POST', { input: { operation: 'add', operands: [i, 1] } })).status).toBe(200)
    const page = await open(keys.oscar!)
    await nav(page).getByRole('link', { name: 'Audit' }).click()
    const chart = page.getByTestId('audit-chart')
    await chart.locator('.recharts-bar-rectangle').first().waitFor()
    const yTicks = chart.locator('.recharts-yAxis-tick-labels .recharts-cartesian-axis-tick-value')
    await yTicks.first().waitFor()
    const values = (await yTicks.allTextContents()).map(Number)
    expect(values[0], `ticks ${values}`).toBe(0)
    const steps = values.slice(1).map((v, i) => v - values[i]!)
    expect(new Set(steps).size, `ticks ${values}`).toBe(1)
    expect(Number.isInteger(steps[0])).toBe(true)
    // Along the time axis the labels stand at equal distances.
    const xs = await chart
      .locator('.recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value')
      .evaluateAll((all: any[]) => all.map((el) => el.getBoundingClientRect().x))
    expect(xs.length).toBeGreaterThan(2)
    const gaps = xs.slice(1).map((x, i) => Math.round(x - xs[i]!))
    expect(Math.max(...gaps) - Math.min(...gaps), `gaps ${gaps}`).toBeLessThanOrEqual(2)
    await screenshot(page, 'audit-chart')
  })

  it('lists the recently decided requests in the inbox, however many are pending', async () => {
    const ask = async (text: string) => {
      const filed = await api('/api/skills/notes_add/invoke', keys['notes-bot']!, 'POST', { input: { title: text } })
      expect(filed.status).toBe(202)
      return filed.body.error.details.approvalId as string
    }
    const decided = await ask('the one that gets decided')
    // More pending than the inbox loads of any status at once: the decided one must still show.
    for (let i = 0; i < 55; i++) await ask(`pending ${i}`)
    expect((await api(`/api/approvals/${decided}/reject`, keys.bob!, 'POST', { comment: 'not this one' })).status).toBe(200)
    // What the page asks for: only requests past pending, newest first; and only pending ones.
    const past = (await api('/api/approvals?decided=true', keys.oscar!)).body.items as Array<{ id: string; status: string }>
    expect(past.map((a) => [a.id, a.status])).toEqual([[decided, 'rejected']])
    const waiting = (await api('/api/approvals?decided=false&limit=500', keys.oscar!)).body.items as Array<{ status: string }>
    expect(waiting.length).toBe(55)
    expect(new Set(waiting.map((a) => a.status))).toEqual(new Set(['pending']))
    expect(await api('/api/approvals?decided=yes', keys.oscar!)).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_input', message: expect.stringContaining('decided: must be true or false') } },
    })
    const page = await open(keys.oscar!)
    await nav(page).getByRole('link', { name: 'Approvals' }).click()
    const card = page.getByRole('list', { name: 'Decided requests' }).locator(`article[data-approval="${decided}"]`)
    await card.waitFor()
    expect(await card.getAttribute('data-status')).toBe('rejected')
    expect(await card.textContent()).toContain('not this one')
    await expect.poll(() => page.getByRole('heading', { name: /^Pending/ }).textContent()).toBe('Pending (55)')
    await screenshot(page, 'approvals-decided')
  })
})
