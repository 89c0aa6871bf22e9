import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Locator, Page } from 'playwright-core'
import { createSkillplane, defineSkill, z, type CallerClient, type Skillplane } from '../../src/index.js'
import { startHttpServer } from '../../src/surfaces/http/index.js'
import { databases } from '../../src/test-support/databases.js'
import { silentLogger, testAgents } from '../../src/test-support/fixtures.js'
import { callApi, chromiumAvailable, cspViolations, launchChromium, screenshot, signIn } from '../../src/test-support/browser.js'

const sqlite = databases.find((d) => d.name === 'sqlite')!
const target = z.object({ target: z.string() })

// A mutating skill (an agent's call of it asks for approval) that calls others through ctx.invoke, two levels deep.
const skills = [
  defineSkill({
    key: 'deploy_thing',
    description: 'Checks a target, deploys it and tells the team',
    class: 'mutating',
    agents: ['Helper'],
    input: target,
    run: async ({ target }, ctx) => {
      await ctx.invoke('check_thing', { target })
      await ctx.invoke('notify_thing', { target })
      return { deployed: target }
    },
  }),
  defineSkill({
    key: 'check_thing',
    description: 'Checks a target by looking it up',
    class: 'safe',
    agents: ['Helper'],
    input: target,
    run: async ({ target }, ctx) => ({ checked: await ctx.invoke('lookup_thing', { target }) }),
  }),
  defineSkill({
    key: 'lookup_thing',
    description: 'Looks a target up',
    class: 'safe',
    agents: ['Helper'],
    input: target,
    run: ({ target }) => ({ found: target }),
  }),
  // Asks its caller a question and its caller's model for a word (a caller channel the test gives it).
  defineSkill({
    key: 'ask_thing',
    description: 'Asks the person which target, then asks their model for a word',
    class: 'safe',
    input: z.object({}),
    run: async (_input, ctx) => {
      const form = { type: 'object' as const, properties: { target: { type: 'string' as const } } }
      const answer = await ctx.client.elicit({ message: 'Which target?', requestedSchema: form }, { signal: ctx.signal })
      await ctx.client.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'A word?' } }], maxTokens: 5 }, { signal: ctx.signal })
      return answer
    },
  }),
  defineSkill({ key: 'notify_thing', description: 'Tells the team', class: 'safe', agents: ['Helper'], input: target, run: () => ({ sent: true }) }),
]

describe.runIf(chromiumAvailable())('the call waterfall in Chromium', () => {
  let plane: Skillplane
  let server: { url: string; close(): Promise<void> }
  let browser: Browser
  const keys: Record<string, string> = {}
  const api = (path: string, key: string, body?: unknown) => callApi(server.url, path, key, body === undefined ? 'GET' : 'POST', body)
  const open = async (key: string): Promise<Page> => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage()
    page.setDefaultTimeout(15_000)
    await signIn(page, server.url, key)
    return page
  }
  /** The waterfall's rows as the reader sees them: span id, kind, status, depth and name. */
  const rowsOf = (waterfall: Locator) =>
    waterfall.locator('tbody tr').evaluateAll((rows) =>
      rows.map((row) => ({
        span: row.getAttribute('data-span'),
        kind: row.getAttribute('data-kind'),
        status: row.getAttribute('data-status'),
        depth: Number(row.getAttribute('data-depth')),
        name: row.querySelector('td')!.textContent,
      })),
    )
  const bar = async (waterfall: Locator, span: string) => (await waterfall.locator(`tr[data-span="${span}"] .wf-bar`).boundingBox())!

  beforeAll(async () => {
    plane = await createSkillplane({ config: { skills, agents: testAgents }, ...(await sqlite.create()), logger: silentLogger(), sync: true })
    server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    for (const [name, role, agentId] of [
      ['oscar', 'operator'],
      ['helper-bot', 'agent', 'helper'],
    ] as const)
      keys[name] = (await plane.people.keys.create({ name, role, agentId }, plane.now())).key
    browser = await launchChromium()
  })
  afterAll(async () => {
    expect(cspViolations).toEqual([])
    await browser?.close()
    await server?.close()
    await plane?.close()
  })

  it('draws an approved call as one tree: the refused request, the wait for a person, then the call and the calls it made', async () => {
    const filed = await api('/api/skills/deploy_thing/invoke', keys['helper-bot']!, { input: { target: 'web-1' } })
    expect(filed.status).toBe(202)
    const refusedCallId = filed.body.callId as string
    const approvalId = filed.body.error.details.approvalId as string
    const page = await open(keys.oscar!)

    // While nobody has decided, the wait is open: it runs to now.
    await page.goto(`${server.url}/audit/${refusedCallId}`)
    const waiting = page.getByTestId('waterfall')
    const wait = waiting.locator('tr[data-kind="approval"]')
    await expect.poll(() => wait.getAttribute('data-status')).toBe('pending')
    expect(await wait.locator('.wf-duration').textContent()).toContain('so far')
    expect(await wait.getByRole('link').getAttribute('href')).toBe(`/approvals#req-${approvalId}`)
    expect(await waiting.locator('tr[aria-current="true"]').getAttribute('data-status')).toBe('approval_required')

    expect((await api(`/api/approvals/${approvalId}/approve`, keys.oscar!, {})).status).toBe(200)
    // The open page fetches its tree again while part of it is open: the decision shows up without a reload.
    await expect.poll(() => wait.getAttribute('data-status'), { timeout: 15_000 }).toBe('approved')
    expect(await wait.locator('.wf-duration').textContent()).not.toContain('so far')
    const executed = await api('/api/skills/deploy_thing/invoke', keys['helper-bot']!, { input: { target: 'web-1' }, approvalId })
    expect(executed).toMatchObject({ status: 200, body: { ok: true, data: { deployed: 'web-1' } } })
    const tree = await api(`/api/audit/${executed.body.callId}/tree`, keys.oscar!)
    expect(tree.status).toBe(200)
    const spanOf = (kind: string, predicate: (s: any) => boolean = () => true) => tree.body.spans.find((s: any) => s.kind === kind && predicate(s))
    const refused = spanOf('call', (s) => s.callId === refusedCallId)
    const approval = spanOf('approval')
    const ran = spanOf('call', (s) => s.callId === executed.body.callId)
    const [check, lookup, notify] = ['check_thing', 'lookup_thing', 'notify_thing'].map((name) => spanOf('call', (s) => s.name.includes(name)))
    for (const span of [refused, approval, ran, check, lookup, notify]) expect(span).toBeDefined()

    await page.goto(`${server.url}/audit/${executed.body.callId}`)
    const waterfall = page.getByTestId('waterfall')
    await expect.poll(async () => (await rowsOf(waterfall)).length).toBe(tree.body.spans.length)
    const rows = await rowsOf(waterfall)
    // One row per span, in the tree's order: the wait between the request and the approved call, which the calls it made follow.
    expect(rows.map((r) => r.span)).toEqual(tree.body.spans.map((s: any) => s.id))
    const index = (span: { id: string }) => rows.findIndex((r) => r.span === span.id)
    expect(index(refused)).toBeLessThan(index(approval))
    expect(index(approval)).toBeLessThan(index(ran))
    expect(index(ran)).toBeLessThan(index(check))
    expect(index(check)).toBeLessThan(index(lookup))
    expect(index(lookup)).toBeLessThan(index(notify))
    const row = (span: { id: string }) => rows[index(span)]!
    expect(row(check).depth).toBe(row(ran).depth + 1)
    expect(row(lookup).depth).toBe(row(check).depth + 1)
    expect(row(notify).depth).toBe(row(ran).depth + 1)
    expect(row(approval)).toMatchObject({ kind: 'approval', status: expect.not.stringMatching(/^pending$/) })
    expect(row(ran).name).toContain('deploy_thing')
    // Text, not only colour: every row names its span, status and duration.
    for (const r of rows) expect(r.name!.length).toBeGreaterThan(0)
    expect(await waterfall.locator('tr[aria-current="true"]').getAttribute('data-span')).toBe(ran.id)

    // On the shared axis the wait starts where the request was refused and ends before the approved call starts.
    const [refusedBar, waitBar, ranBar, checkBar] = [
      await bar(waterfall, refused.id),
      await bar(waterfall, approval.id),
      await bar(waterfall, ran.id),
      await bar(waterfall, check.id),
    ]
    expect(waitBar.x).toBeGreaterThanOrEqual(refusedBar.x - 1)
    expect(waitBar.x + waitBar.width).toBeLessThanOrEqual(ranBar.x + 1)
    expect(checkBar.x).toBeGreaterThanOrEqual(ranBar.x - 1)
    expect(checkBar.x + checkBar.width).toBeLessThanOrEqual(ranBar.x + ranBar.width + 1)
    // Waiting for a person is drawn apart from working: hatched, not a solid colour.
    expect(
      await waterfall.locator(`tr[data-span="${approval.id}"] .wf-bar`).evaluate((e) => (globalThis as any).getComputedStyle(e).backgroundImage),
    ).toContain('repeating-linear-gradient')
    expect(await waterfall.locator(`tr[data-span="${check.id}"] .wf-bar`).evaluate((e) => (globalThis as any).getComputedStyle(e).backgroundImage)).toBe('none')
    // The hover says what the span is.
    expect(await waterfall.locator(`tr[data-span="${check.id}"]`).getAttribute('title')).toMatch(/check_thing[\s\S]*ok · \d/)
    await screenshot(page, 'waterfall')

    // A child's bar opens that call.
    await waterfall.locator(`tr[data-span="${check.id}"] .wf-bar`).click()
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/audit/${check.callId}`)
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toContain('check_thing')
    await expect.poll(() => page.getByTestId('waterfall').locator('tr[aria-current="true"]').getAttribute('data-span')).toBe(check.id)
  })

  it('draws a call that waited in-line for its approval with the wait inside its bar, before the calls it made', async () => {
    const call = api('/api/skills/deploy_thing/invoke', keys['helper-bot']!, { input: { target: 'web-2' }, wait: 60 })
    let approvalId: string | undefined
    await expect
      .poll(async () => (approvalId = (await api('/api/approvals?status=pending', keys.oscar!)).body.items.find((a: any) => a.input?.target === 'web-2')?.id), {
        timeout: 15_000,
      })
      .toBeDefined()
    expect((await api(`/api/approvals/${approvalId}/approve`, keys.oscar!, {})).status).toBe(200)
    const done = await call
    expect(done).toMatchObject({ status: 200, body: { ok: true } })
    const page = await open(keys.oscar!)
    await page.goto(`${server.url}/audit/${done.body.callId}`)
    const waterfall = page.getByTestId('waterfall')
    await waterfall.locator('tr[data-kind="approval"]').waitFor()
    const rows = await rowsOf(waterfall)
    const root = rows.find((r) => r.kind === 'call' && r.depth === 0)!
    const wait = rows.find((r) => r.kind === 'approval')!
    const check = rows.find((r) => r.name!.includes('check_thing'))!
    expect(root.name).toContain('deploy_thing')
    expect(wait).toMatchObject({ depth: 1, status: 'executed' })
    expect(rows.indexOf(wait)).toBeLessThan(rows.indexOf(check))
    const [rootBar, waitBar, checkBar] = [await bar(waterfall, root.span!), await bar(waterfall, wait.span!), await bar(waterfall, check.span!)]
    expect(waitBar.x).toBeGreaterThanOrEqual(rootBar.x - 1)
    expect(waitBar.x + waitBar.width).toBeLessThanOrEqual(checkBar.x + 1)
    expect(checkBar.x + checkBar.width).toBeLessThanOrEqual(rootBar.x + rootBar.width + 1)
  })

  it("draws the questions a call put to its caller: the person's answer as a wait, the model's as a model step", async () => {
    const client: CallerClient = {
      capabilities: { sampling: true, elicitation: { form: true, url: false }, logging: false },
      elicit: async () => ({ action: 'accept', content: { target: 'web-9' } }),
      sample: async () => ({ role: 'assistant', content: { type: 'text', text: 'Bonjour' }, model: 'person-model' }),
      log: () => {},
    }
    const caller = { kind: 'user' as const, id: 'u-oscar', name: 'oscar', role: 'operator' as const }
    const asked = await plane.invoke('ask_thing', {}, { caller, client })
    expect(asked.ok).toBe(true)
    const page = await open(keys.oscar!)
    await page.goto(`${server.url}/audit/${asked.callId}`)
    const waterfall = page.getByTestId('waterfall')
    await waterfall.locator('tr[data-kind="sampling"]').waitFor()
    expect((await rowsOf(waterfall)).map((r) => [r.kind, r.status, r.depth])).toEqual([
      ['call', 'ok', 0],
      ['elicitation', 'accepted', 1],
      ['sampling', 'ok', 1],
    ])
    const question = waterfall.locator('tr[data-kind="elicitation"]')
    expect(await question.locator('td').first().textContent()).toMatch(/Which target\?\s*question to the caller\s*answered target/)
    expect(await waterfall.locator('tr[data-kind="sampling"] td').first().textContent()).toMatch(/person-model\s*caller's model\s*Bonjour/)
    // The person's time is a wait, hatched like an approval's.
    expect(await question.locator('.wf-bar').evaluate((e) => (globalThis as any).getComputedStyle(e).backgroundImage)).toContain('repeating-linear-gradient')
    expect(await waterfall.locator('.wf-legend').textContent()).toContain('question to the caller')
    await screenshot(page, 'waterfall-questions')
  })

  it('shows no waterfall for a call that started nothing', async () => {
    const lone = await api('/api/skills/lookup_thing/invoke', keys.oscar!, { input: { target: 'db-1' } })
    expect(lone.status).toBe(200)
    expect((await api(`/api/audit/${lone.body.callId}/tree`, keys.oscar!)).body.spans).toHaveLength(1)
    const page = await open(keys.oscar!)
    const answered = page.waitForResponse((r) => r.url().endsWith(`/api/audit/${lone.body.callId}/tree`))
    await page.goto(`${server.url}/audit/${lone.body.callId}`)
    expect((await answered).status()).toBe(200)
    await page.getByRole('heading', { name: 'Result' }).waitFor()
    expect(await page.getByTestId('waterfall').count()).toBe(0)
  })
})
