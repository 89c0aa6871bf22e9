import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { createSkillplane, type Skillplane } from '../../src/index.js'
import { startHttpServer } from '../../src/surfaces/http/index.js'
import { databases } from '../../src/test-support/databases.js'
import { silentLogger, testAgents, testSkills } from '../../src/test-support/fixtures.js'
import { sopSigner } from '../../src/test-support/sop.js'
import { chromiumAvailable, cspViolations, launchChromium, screenshot, signIn, callApi } from '../../src/test-support/browser.js'

const sqlite = databases.find((d) => d.name === 'sqlite')!
const signer = sopSigner()

describe.runIf(chromiumAvailable())('the web console in Chromium', () => {
  let plane: Skillplane
  let server: { url: string; close(): Promise<void> }
  let browser: Browser
  const keys: Record<string, string> = {}
  const api = (path: string, key: string, body?: unknown) => callApi(server.url, path, key, body === undefined ? 'GET' : 'POST', body)
  const open = async (key: string): Promise<Page> => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage()
    page.setDefaultTimeout(15_000)
    await signIn(page, server.url, key)
    return page
  }

  beforeAll(async () => {
    plane = await createSkillplane({
      config: { skills: testSkills(), agents: testAgents, sopKeys: [signer.config] },
      ...(await sqlite.create()),
      logger: silentLogger(),
      sync: true,
    })
    server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    for (const [name, role, agentId] of [
      ['alice', 'admin'],
      ['bob', 'admin'],
      ['carol', 'admin'],
      ['oscar', 'operator'],
      ['vera', 'viewer'],
      ['helper-bot', 'agent', 'helper'],
    ] as const)
      keys[name] = (await plane.people.keys.create({ name, role, agentId }, plane.now())).key
    const sop = signer.sop({ id: 'wipe-procedure', skills: ['wipe_things'] })
    expect((await api('/api/sops', keys.alice!, sop)).status).toBe(201)
    const small = signer.sop({
      id: 'small-wipes',
      skills: ['wipe_things'],
      constraints: { wipe_things: { type: 'object', properties: { count: { maximum: 2 } } } },
    })
    expect((await api('/api/sops', keys.alice!, small)).status).toBe(201)
    browser = await launchChromium()
  })
  afterAll(async () => {
    // Everything the pages did stayed within the console's Content-Security-Policy.
    expect(cspViolations).toEqual([])
    await browser?.close()
    await server?.close()
    await plane?.close()
  })

  it('refuses a wrong key at sign-in and keeps a good one for the tab', async () => {
    const page = await (await browser.newContext()).newPage()
    await page.goto(server.url)
    await page.getByLabel('API key').fill('sk_not_a_key')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('unknown or revoked')
    await page.getByLabel('API key').fill(keys.alice!)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await expect.poll(() => page.getByTestId('who').textContent()).toBe('alice · admin')
    await page.reload()
    await expect.poll(() => page.getByTestId('who').textContent()).toBe('alice · admin')
    await screenshot(page, 'skills')
  })

  it('signs out a key revoked while it is signed in, at its next request', async () => {
    const { key } = await plane.people.keys.create({ name: 'temp-operator', role: 'operator' }, plane.now())
    const page = await open(key)
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Approvals' }).click()
    await page.locator('[data-live="true"]').waitFor()
    expect(await plane.people.keys.revoke('temp-operator', plane.now())).toBe(1)
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Skills' }).click()
    await page.getByLabel('API key').waitFor()
    // Nothing of the key is left in the tab.
    expect(await page.evaluate('sessionStorage.length')).toBe(0)
  })

  it('invokes a safe skill through the form made from its schema, and shows a field error first', async () => {
    const page = await open(keys.alice!)
    await page.getByRole('link', { name: 'echo', exact: true }).click()
    await page.locator('#root_message').fill('hello from the form')
    await page.locator('#root_count').fill('0')
    await page.getByRole('button', { name: 'Invoke' }).click()
    await expect.poll(() => page.locator('.invoke .error-detail').first().textContent()).toContain('must be >= 1')
    expect(await page.getByTestId('invoke-result').count()).toBe(0)
    await page.locator('#root_count').fill('2')
    await page.getByRole('button', { name: 'Invoke' }).click()
    const result = page.getByTestId('invoke-result')
    await expect.poll(() => result.textContent()).toContain('"message": "hello from the form"')
    expect(await result.textContent()).toContain('"count": 2')
    await screenshot(page, 'skill-invoke')
    const audit = await api('/api/audit?skill=echo', keys.alice!)
    expect(audit.body.items[0]).toMatchObject({ status: 'ok', input: { message: 'hello from the form', count: 2 }, caller: { name: 'alice' } })
  })

  it("shows an agent's mutating call in the open inbox, approves it there, and the audit shows it ran", async () => {
    const page = await open(keys.oscar!)
    await page.getByRole('link', { name: 'Approvals' }).click()
    await page.getByTestId('live').and(page.locator('[data-live="true"]')).waitFor()
    // The agent waits for the decision: its call runs once the inbox approves it.
    const agentCall = api('/api/skills/write_thing/invoke', keys['helper-bot']!, { input: { value: 'from the agent' }, wait: 60 })
    const card = page.locator('article[data-status="pending"]', { hasText: 'write_thing' })
    await card.waitFor()
    expect(await card.textContent()).toContain('"value": "from the agent"')
    expect(await card.textContent()).toContain('helper-bot')
    await screenshot(page, 'approvals-inbox')
    await card.getByLabel('Comment').fill('fine by me')
    await card.getByRole('button', { name: 'Approve' }).click()
    const result = await agentCall
    expect(result).toMatchObject({ status: 200, body: { ok: true, data: { stored: 'from the agent' } } })
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Audit' }).click()
    const row = page.locator(`tr[data-call="${result.body.callId}"]`)
    await row.waitFor()
    expect(await row.textContent()).toContain('write_thing')
    expect(await row.textContent()).toContain('ok')
    await screenshot(page, 'audit')
    await row.getByRole('link').click()
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toContain('write_thing')
    await screenshot(page, 'audit-call')
  })

  it('edits the catalog side of a skill, sending only what changed, and resets a field to the code', async () => {
    const page = await open(keys.alice!)
    await page.goto(`${server.url}/skills/json_schema_skill`)
    const form = page.getByRole('form', { name: 'Catalog (admin)' })
    expect(await form.getByRole('button', { name: 'Save' }).isDisabled()).toBe(true)
    await form.getByLabel(/^Description/).fill('Greets someone by name, politely')
    await form.getByRole('button', { name: 'Save' }).click()
    await page.locator('p.description', { hasText: 'politely' }).waitFor()
    const edited = (await api('/api/skills/json_schema_skill', keys.alice!)).body
    expect(edited).toMatchObject({ description: 'Greets someone by name, politely', overrides: { description: true, title: false, tags: false, class: false } })
    await screenshot(page, 'skill-catalog')
    await form.getByRole('button', { name: /reset to the code's description/ }).click()
    await expect.poll(async () => (await api('/api/skills/json_schema_skill', keys.alice!)).body.overrides.description).toBe(false)
    expect((await api('/api/skills/json_schema_skill', keys.alice!)).body.description).toBe('Uses a raw JSON Schema input')
    await page.locator('p.description', { hasText: 'Uses a raw JSON Schema input' }).waitFor()
  })

  it('shows a skill its risk findings, and lets an admin share it with named users only', async () => {
    await plane.skills.setRisks(
      'big_result',
      [{ level: 'high', rule: 'remote-exec', file: 'scripts/setup.sh', line: 3, message: 'runs what it downloads: curl … | sh' }],
      plane.now(),
    )
    const page = await open(keys.alice!)
    await page.goto(`${server.url}/skills/big_result`)
    const risks = page.getByRole('list', { name: 'Risk findings' })
    await expect.poll(() => risks.textContent()).toContain('scripts/setup.sh:3')
    const form = page.getByRole('form', { name: 'Sharing' })
    await form.getByLabel('these users (key names)').check()
    await form.getByLabel('Users (comma-separated)').fill('oscar')
    await form.getByRole('button', { name: 'Save sharing' }).click()
    await expect.poll(async () => (await api('/api/skills/big_result', keys.alice!)).body.sharing).toEqual({ visibility: 'users', users: ['oscar'] })
    await screenshot(page, 'skill-sharing')
    expect((await api('/api/skills/big_result', keys.oscar!)).status).toBe(200)
    expect((await api('/api/skills/big_result', keys.vera!)).status).toBe(404)
    await form.getByLabel('everyone').check()
    await form.getByRole('button', { name: 'Save sharing' }).click()
    await expect.poll(async () => (await api('/api/skills/big_result', keys.vera!)).status).toBe(200)
  })

  it('shows the tree a call belongs to as a waterfall on its audit page, from the top caller down', async () => {
    const parent = await api('/api/skills/parent_call/invoke', keys.alice!, { input: {} })
    expect(parent.status).toBe(200)
    const child = (await api(`/api/audit?parentCallId=${parent.body.callId}`, keys.alice!)).body.items[0]
    expect(child).toMatchObject({ skill: 'echo', parentCallId: parent.body.callId })
    const page = await open(keys.oscar!)
    await page.goto(`${server.url}/audit/${child.callId}`)
    const rows = page.getByTestId('waterfall').locator('tbody tr')
    await expect.poll(() => rows.count()).toBe(2)
    // The top call links to its own page; echo (this page) sits under it.
    expect(await rows.nth(0).getByRole('link', { name: 'parent_call' }).getAttribute('href')).toBe(`/audit/${parent.body.callId}`)
    expect(await rows.nth(0).getAttribute('data-depth')).toBe('0')
    expect(await rows.nth(1).getAttribute('data-depth')).toBe('1')
    expect(await rows.nth(1).getAttribute('aria-current')).toBe('true')
    expect(await rows.nth(1).locator('td').first().textContent()).toContain('echo')
    await screenshot(page, 'audit-trace')
  })

  it('approves a mutating call for the rest of its conversation, and the next call of it runs without asking', async () => {
    const page = await open(keys.oscar!)
    await page.getByRole('link', { name: 'Approvals' }).click()
    await page.locator('[data-live="true"]').waitFor()
    const first = api('/api/skills/write_thing/invoke', keys['helper-bot']!, { input: { value: 'one' }, conversationId: 'conv-console', wait: 60 })
    const card = page.locator('article[data-status="pending"]', { hasText: 'conv-console' })
    await card.waitFor()
    // Only admins may write an ALWAYS policy: the operator is not offered it.
    expect(await card.getByText('always, for agent').count()).toBe(0)
    await card.getByLabel(/the rest of this conversation/).check()
    await card.getByLabel('Minutes the grant lasts').fill('15')
    await screenshot(page, 'approvals-grant')
    await card.getByRole('button', { name: 'Approve' }).click()
    expect(await first).toMatchObject({ status: 200, body: { ok: true, data: { stored: 'one' } } })
    const second = await api('/api/skills/write_thing/invoke', keys['helper-bot']!, { input: { value: 'two' }, conversationId: 'conv-console' })
    expect(second).toMatchObject({ status: 200, body: { ok: true, data: { stored: 'two' } } })
    const elsewhere = await api('/api/skills/write_thing/invoke', keys['helper-bot']!, { input: { value: 'three' }, conversationId: 'conv-other' })
    expect(elsewhere.status).toBe(202)
    const grants = await api('/api/approvals/grants', keys.oscar!)
    expect(JSON.stringify(grants.body)).toContain('conv-console')
  })

  it('takes two admins, each citing the signed procedure, for a dangerous call', async () => {
    // The agent asks; the two admins who decide are not the one who asked.
    const filed = await api('/api/skills/wipe_things/invoke', keys['helper-bot']!, { input: { count: 3 } })
    expect(filed.status).toBe(202)
    const approvalId = filed.body.error.details.approvalId as string
    // An operator sees the request but is offered no decision: it needs admins (the abilities /api/me answers).
    const operator = await open(keys.oscar!)
    await operator.getByRole('link', { name: 'Approvals' }).click()
    const seen = operator.locator(`article[data-approval="${approvalId}"]`)
    await seen.getByTestId('progress').waitFor()
    expect(await seen.getByRole('button', { name: 'Approve' }).count()).toBe(0)
    for (const [admin, progress] of [
      ['alice', '1 of 2'],
      ['bob', '2 of 2'],
    ] as const) {
      const page = await open(keys[admin]!)
      await page.getByRole('link', { name: 'Approvals' }).click()
      const card = page.locator(`article[data-approval="${approvalId}"]`)
      await card.waitFor()
      const approve = card.getByRole('button', { name: 'Approve' })
      expect(await approve.isDisabled()).toBe(true)
      // The server checks a procedure against the request before anyone cites it.
      await card.getByLabel('Signed procedure').selectOption('small-wipes')
      await expect.poll(() => card.getByTestId('sop-check').textContent()).toMatch(/✗ the call is outside SOP "small-wipes"/)
      expect(await approve.isDisabled()).toBe(true)
      await card.getByLabel('Signed procedure').selectOption('wipe-procedure')
      await expect.poll(() => card.getByTestId('sop-check').textContent()).toContain('✓ Verified')
      expect(await approve.isDisabled()).toBe(false)
      await approve.click()
      await expect.poll(() => card.getByTestId('progress').textContent()).toContain(progress)
      await screenshot(page, `approvals-dangerous-${admin}`)
    }
    const view = await api(`/api/approvals/${approvalId}`, keys.alice!)
    expect(view.body).toMatchObject({ status: 'approved', decisions: [{ sop: { id: 'wipe-procedure' } }, { sop: { id: 'wipe-procedure' } }] })
    const ran = await api('/api/skills/wipe_things/invoke', keys['helper-bot']!, { input: { count: 3 }, approvalId })
    expect(ran).toMatchObject({ status: 200, body: { ok: true, data: { wiped: 3 } } })
  })

  it('shows the request a call from the form filed, updates it live as admins decide, and runs it once approved', async () => {
    const page = await open(keys.alice!)
    await page.goto(`${server.url}/skills/wipe_things`)
    await page.locator('#root_count').fill('1')
    await page.getByRole('button', { name: 'Invoke' }).click()
    const request = page.getByTestId('approval-live')
    await request.and(page.locator('[data-status="pending"]')).waitFor()
    await expect.poll(() => request.textContent()).toContain('0 of 2 approvals')
    await request.getByText('live').waitFor()
    const approvalId = (await request.locator('code').first().textContent())!
    expect(await page.getByRole('button', { name: /Run it now/ }).count()).toBe(0)
    for (const admin of ['bob', 'carol'])
      expect((await api(`/api/approvals/${approvalId}/approve`, keys[admin]!, { sopId: 'wipe-procedure' })).status).toBe(200)
    await request.and(page.locator('[data-status="approved"]')).waitFor()
    expect(await request.textContent()).toContain('2 of 2 approvals')
    await screenshot(page, 'skill-approval-live')
    await page.getByRole('button', { name: /Run it now/ }).click()
    await expect.poll(() => page.getByTestId('invoke-result').textContent()).toContain('"wiped": 1')
    expect((await api(`/api/approvals/${approvalId}`, keys.alice!)).body.status).toBe('executed')
  })

  it('shows a viewer no approve buttons and no admin pages', async () => {
    const filed = await api('/api/skills/write_thing/invoke', keys['helper-bot']!, { input: { value: 'for the viewer to see' } })
    expect(filed.status).toBe(202)
    const page = await open(keys.vera!)
    expect(await page.getByTestId('who').textContent()).toBe('vera · viewer')
    const nav = page.getByRole('navigation', { name: 'Console' })
    expect(await nav.getByRole('link').allTextContents()).toEqual(['Skills', 'Agents', 'Approvals', 'Connections'])
    await page.getByRole('link', { name: 'Approvals' }).click()
    await page.getByRole('heading', { name: /Pending/ }).waitFor()
    expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0)
    await page.goto(server.url + '/audit')
    await page.getByRole('heading', { name: 'Not here' }).waitFor()
    await page.goto(server.url + '/skills/echo')
    await page.getByRole('heading', { name: 'Invoke' }).waitFor()
    expect(await page.getByRole('heading', { name: 'Catalog (admin)' }).count()).toBe(0)
    expect(await page.getByRole('heading', { name: 'Recent calls' }).count()).toBe(0)
    await screenshot(page, 'viewer-skill')
  })
})
