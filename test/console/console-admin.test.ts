import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { createSkillplane, type Skillplane } from '../../src/index.js'
import { startHttpServer } from '../../src/surfaces/http/index.js'
import { databases, tempDir, tree } from '../../src/test-support/databases.js'
import { silentLogger, testAgents, testSkills } from '../../src/test-support/fixtures.js'
import { chromiumAvailable, cspViolations, launchChromium, screenshot, signIn, callApi } from '../../src/test-support/browser.js'

const sqlite = databases.find((d) => d.name === 'sqlite')!
const examples = join(import.meta.dirname, '../../examples')

describe.runIf(chromiumAvailable())('the console’s sources, edges and policies in Chromium', () => {
  let plane: Skillplane
  let server: { url: string; close(): Promise<void> }
  let browser: Browser
  let helperId: string
  const keys: Record<string, string> = {}
  const api = (path: string, key: string, method = 'GET', body?: unknown) => callApi(server.url, path, key, method, body)
  const open = async (key: string): Promise<Page> => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage()
    page.setDefaultTimeout(15_000)
    await signIn(page, server.url, key)
    return page
  }
  const nav = (page: Page) => page.getByRole('navigation', { name: 'Console' })
  // Form controls and buttons with no name a screen reader could say: none is allowed. (Typed loosely:
  // the function runs in the page, and this project's TypeScript has no DOM library.)
  const unlabelled = (page: Page) =>
    page.locator('main input, main select, main textarea, main button').evaluateAll((elements: any[]) =>
      elements
        .filter((el) => !(el.labels?.length || el.getAttribute('aria-label') || el.getAttribute('aria-labelledby')))
        .filter((el) => !(el.tagName === 'BUTTON' && el.textContent.trim()))
        .map((el) => String(el.outerHTML).slice(0, 120)),
    )

  beforeAll(async () => {
    // Every kind of source the page shows: a pack, an MCP server (stdio), an OpenAPI document whose
    // skills wait for a secret, and an instruction skill with a finding.
    const instructions = tree({ 'odd-one/SKILL.md': '---\nname: other-name\ndescription: A skill whose name is not its folder\n---\nDo things.\n' })
    plane = await createSkillplane({
      config: {
        skills: testSkills(),
        agents: testAgents,
        packDirs: [join(examples, 'packs')],
        skillDirs: [{ path: instructions, agents: [] }],
        mcpServers: [
          {
            name: 'tickets',
            command: process.execPath,
            args: [join(examples, 'mcp/tickets-server.mjs')],
            env: { TICKETS_FILE: join(tempDir(), 'tickets.json') },
          },
        ],
        openapi: [
          {
            name: 'inventory',
            spec: join(examples, 'openapi/inventory.yaml'),
            baseUrl: 'http://127.0.0.1:9',
            auth: { type: 'bearer', secret: 'INVENTORY_TOKEN' },
          },
        ],
      },
      ...(await sqlite.create()),
      logger: silentLogger(),
      sync: true,
    })
    server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    helperId = plane.agents.resolve('helper')!
    for (const [name, role] of [
      ['alice', 'admin'],
      ['oscar', 'operator'],
      ['vera', 'viewer'],
    ] as const)
      keys[name] = (await plane.people.keys.create({ name, role }, plane.now())).key
    // Enrolled through the API and never started: the page lists it offline.
    expect((await api('/api/edges', keys.alice!, 'POST', { name: 'web-1', labels: { env: 'prod' } })).status).toBe(201)
    browser = await launchChromium()
  })
  afterAll(async () => {
    // Everything the pages did stayed within the console's Content-Security-Policy.
    expect(cspViolations).toEqual([])
    await browser?.close()
    await server?.close()
    await plane?.close()
  })

  it('lets an admin set a DENY override for an agent in the policy matrix, see the cell change, and clear it', async () => {
    const page = await open(keys.alice!)
    await nav(page).getByRole('link', { name: 'Policies' }).click()
    await page.locator('tr[data-skill="echo"]').waitFor()
    await screenshot(page, 'policies-all')
    await page.getByLabel('Skill key contains').fill('write')
    await page.getByRole('button', { name: 'Filter' }).click()
    const cell = page.getByRole('button', { name: /^write_thing for Helper:/ })
    await expect.poll(() => cell.getAttribute('data-decision')).toBe('ASK')
    expect(await cell.getAttribute('data-origin')).toBe('default')
    expect(await page.getByRole('button', { name: /^write_thing for viewers:/ }).getAttribute('data-origin')).toBe('no access')

    // By keyboard: the cell is a button, its editor's controls follow it.
    await cell.focus()
    await page.keyboard.press('Enter')
    await page.getByRole('button', { name: 'Set DENY for write_thing for Helper' }).click()
    await expect.poll(() => cell.getAttribute('data-decision')).toBe('DENY')
    expect(await cell.getAttribute('data-origin')).toBe('override')
    expect(await page.getByTestId('cell-reason').textContent()).toContain('says DENY')
    // The server agrees: the override is stored, and its decision is what the pipeline's policy engine gives.
    const { policies } = (await api('/api/policies', keys.alice!)).body
    expect(policies).toEqual([expect.objectContaining({ skill: 'write_thing', level: 'agent', subject: helperId, decision: 'DENY' })])
    const effective = await api(`/api/policies/effective?skill=write_thing&subject=agent:${helperId}`, keys.alice!)
    expect(effective.body.skills[0].cells[0]).toMatchObject({ decision: 'DENY', policyId: policies[0].id })
    expect(await page.locator(`tr[data-policy="${policies[0].id}"]`).textContent()).toContain('agentHelperDENY')
    expect(await unlabelled(page)).toEqual([])
    await screenshot(page, 'policies')

    await page.getByRole('button', { name: 'Clear override' }).click()
    await expect.poll(() => cell.getAttribute('data-decision')).toBe('ASK')
    expect(await cell.getAttribute('data-origin')).toBe('default')
    expect((await api('/api/policies', keys.alice!)).body.policies).toEqual([])
    // Escape closes the editor and gives the keyboard back to the cell.
    await page.keyboard.press('Escape')
    await page.getByRole('group', { name: 'Policy of write_thing for Helper' }).waitFor({ state: 'detached' })
    expect(await cell.evaluate((el: any) => el === el.ownerDocument.activeElement)).toBe(true)
  })

  it("shows the policy in effect on a skill's page, for the admin and each agent bound to it", async () => {
    const page = await open(keys.alice!)
    await page.goto(server.url + '/skills/write_thing')
    const table = page.getByRole('table', { name: 'Policy in effect' })
    await table.locator('tr[data-subject="self"]').waitFor()
    expect(await table.locator('tr[data-subject="self"]').textContent()).toContain('ALWAYS')
    expect(await table.locator(`tr[data-subject="agent:${helperId}"]`).textContent()).toContain('ASKmutating skill requested by an agent')
    await screenshot(page, 'skill-policy')
  })

  it('lists the sources, edges and secrets for an admin, reloads, sets a secret and enrolls an edge', async () => {
    const page = await open(keys.alice!)
    await nav(page).getByRole('link', { name: 'Sources' }).click()
    await page.getByRole('heading', { name: 'MCP servers' }).waitFor()
    const tickets = page.locator('[data-kind="mcp"] tr[data-entry="tickets"]')
    await expect.poll(() => tickets.textContent()).toContain('connected')
    expect(await tickets.textContent()).toContain('tickets_open')
    expect(await page.locator('[data-kind="pack"]').textContent()).toContain('text_stats')
    expect(await page.getByRole('list', { name: 'Instruction skills: findings' }).textContent()).toContain('odd-one/SKILL.md')
    const web1 = page.locator('tr[data-edge="web-1"]')
    expect(await web1.textContent()).toContain('offline')
    expect(await web1.textContent()).toContain('env=prod')
    const token = page.locator('tr[data-value="INVENTORY_TOKEN"]')
    expect(await token.textContent()).toContain('needs auth')
    expect(await token.textContent()).toContain('inventory_')

    await page.getByRole('button', { name: 'Reload sources' }).click()
    await expect.poll(() => page.getByTestId('reload-outcome').textContent()).toContain('MCP: tickets connected')

    await page.getByLabel('Secret name').fill('INVENTORY_TOKEN')
    await page.getByLabel('Value (for everyone)').fill('demo-token')
    await page.getByRole('button', { name: 'Set secret' }).click()
    await expect.poll(() => token.textContent()).toContain('everyone · v1')
    expect(await token.textContent()).not.toContain('needs auth')
    expect(await page.content()).not.toContain('demo-token')
    const { secrets } = (await api('/api/secrets', keys.alice!)).body
    expect(secrets).toEqual([expect.objectContaining({ name: 'INVENTORY_TOKEN', scope: 'global', version: 1 })])
    expect(secrets[0]).not.toHaveProperty('value')

    await page.getByLabel('Edge name').fill('web-2')
    await page.getByLabel('Labels (key=value, comma-separated)').fill('env=staging')
    await page.getByRole('button', { name: 'Enroll edge' }).click()
    expect(await page.getByTestId('edge-token').textContent()).toMatch(/^spe_/)
    await page.locator('tr[data-edge="web-2"]').waitFor()
    expect((await api('/api/edges/web-2', keys.alice!)).body).toMatchObject({ name: 'web-2', labels: { env: 'staging' }, online: false })
    expect(await unlabelled(page)).toEqual([])
    await screenshot(page, 'sources')
  })

  it('shows an operator the edges but no sources, secrets or policies', async () => {
    const page = await open(keys.oscar!)
    expect(await nav(page).getByRole('link').allTextContents()).toEqual(['Skills', 'Agents', 'Approvals', 'Audit', 'Health', 'Sources', 'Connections'])
    await nav(page).getByRole('link', { name: 'Sources' }).click()
    await page.getByRole('heading', { name: 'Sources', level: 1 }).waitFor()
    await page.locator('tr[data-edge="web-1"]').waitFor()
    expect(await page.getByRole('heading', { name: 'MCP servers' }).count()).toBe(0)
    expect(await page.getByRole('heading', { name: 'Secrets and settings' }).count()).toBe(0)
    expect(await page.getByRole('button', { name: 'Enroll edge' }).count()).toBe(0)
    await screenshot(page, 'sources-operator')
    await page.goto(server.url + '/policies')
    await page.getByRole('heading', { name: 'Not here' }).waitFor()
  })

  it('shows a viewer neither page, and its own policy on a skill', async () => {
    const page = await open(keys.vera!)
    expect(await nav(page).getByRole('link').allTextContents()).toEqual(['Skills', 'Agents', 'Approvals', 'Connections'])
    for (const path of ['/sources', '/policies', '/health']) {
      await page.goto(server.url + path)
      await page.getByRole('heading', { name: 'Not here' }).waitFor()
    }
    await page.goto(server.url + '/skills/echo')
    const mine = page.getByRole('table', { name: 'Policy in effect' }).locator('tr[data-subject="self"]')
    await mine.waitFor()
    expect(await mine.textContent()).toContain('vera (you)ALWAYS')
    expect(await page.getByRole('link', { name: /overrides in Policies/ }).count()).toBe(0)
  })
})
