import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { createSkillplane, type Skillplane } from '../../src/index.js'
import { startHttpServer } from '../../src/surfaces/http/index.js'
import { AuditRepository, openDatabase } from '../../src/store/index.js'
import { databases, waitFor } from '../../src/test-support/databases.js'
import { admin as alice, agentCaller, approvalIdOf, auditRow, silentLogger, testAgents, testSkills } from '../../src/test-support/fixtures.js'
import { chromiumAvailable, cspViolations, launchChromium, screenshot, signIn } from '../../src/test-support/browser.js'

const sqlite = databases.find((d) => d.name === 'sqlite')!
const ids = Array.from({ length: 12 }, (_, i) => `id-${i}`)

describe.runIf(chromiumAvailable())('the health page', () => {
  let plane: Skillplane
  let server: { url: string; close(): Promise<void> }
  let browser: Browser
  let key: string
  const open = async (path: string): Promise<Page> => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage()
    page.setDefaultTimeout(15_000)
    await signIn(page, server.url, key)
    await page.goto(server.url + path)
    return page
  }
  // The skills in the table's order, once it shows `first` on top.
  const order = async (page: Page, first: string) => {
    const rows = page.getByTestId('health-table').locator('tbody tr')
    await expect.poll(() => rows.first().getAttribute('data-value'), { timeout: 15_000 }).toBe(first)
    return rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-value')))
  }

  beforeAll(async () => {
    const where = await sqlite.create()
    plane = await createSkillplane({ config: { skills: testSkills(), agents: testAgents }, ...where, logger: silentLogger(), sync: true })
    server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    key = (await plane.people.keys.create({ name: 'oscar', role: 'operator' }, plane.now())).key
    browser = await launchChromium()
    // Each skill is first by one figure: echo by calls, slow by duration, explode by errors,
    // bulk_delete by approval wait (about 2 s) ahead of write_thing (decided at once).
    for (let i = 0; i < 6; i++) await plane.invoke('echo', { message: `m${i}` }, { caller: alice })
    await plane.invoke('slow', { ms: 150 }, { caller: alice })
    await plane.invoke('slow', { ms: 5 }, { caller: alice })
    await plane.invoke('explode', {}, { caller: alice })
    await plane.invoke('explode', {}, { caller: alice })
    await plane.invoke('echo', { message: '' }, { caller: alice })
    const quick = approvalIdOf(await plane.invoke('write_thing', { value: 'v' }, { caller: agentCaller('helper') }))
    const slowRequest = approvalIdOf(await plane.invoke('bulk_delete', { ids }, { caller: alice }))
    const asked = Date.now()
    await plane.approvals.decide({ id: quick, caller: { ...alice, id: 'u-bob', name: 'bob' }, decision: 'approve' })
    // The request has waited two seconds: a wait the histogram tells apart from the other.
    await waitFor(() => Date.now() - asked >= 2_000)
    await plane.approvals.decide({ id: slowRequest, caller: { ...alice, id: 'u-bob', name: 'bob' }, decision: 'reject' })
    // Calls three hours old, written to the same store as a manager would: only a wider window shows them.
    const store = await openDatabase(where)
    const repo = new AuditRepository(store.db, store.sqlite)
    const old = Date.now() - 3 * 3_600_000
    await repo.upsertMany(
      Array.from({ length: 4 }, (_, i) =>
        auditRow(`01OLD${String(i).padStart(21, '0')}`, {
          skill_key: 'legacy_report',
          status: 'ok',
          started_at: new Date(old + i).toISOString(),
          finished_at: new Date(old + i + 30).toISOString(),
          duration_ms: 30,
        }),
      ),
    )
    await repo.flushStats()
    await store.close()
  })
  afterAll(async () => {
    expect(cspViolations).toEqual([])
    await browser?.close()
    await server?.close()
    await plane?.close()
  })

  it('sorts by a clicked column and by the presets, and widens with the window', async () => {
    const page = await open('/')
    await page.getByRole('link', { name: 'Health' }).click()
    await page.getByLabel('Window').selectOption('1h')
    // Calls, most first: echo's seven; the old calls are outside the hour.
    const byCalls = await order(page, 'echo')
    expect(byCalls).not.toContain('legacy_report')
    expect(byCalls.slice(0, 2)).toEqual(['echo', 'explode'])

    await page.getByRole('button', { name: 'p95' }).click()
    expect((await order(page, 'slow'))[0]).toBe('slow')
    await expect.poll(() => page.getByRole('columnheader', { name: /p95/ }).getAttribute('aria-sort'), { timeout: 15_000 }).toBe('descending')
    // Again: the other way, skills that never ran (no duration) still last.
    await page.getByRole('button', { name: 'p95' }).click()
    const rows = page.getByTestId('health-table').locator('tbody tr')
    await expect.poll(() => rows.first().getAttribute('data-value'), { timeout: 15_000 }).not.toBe('slow')
    const ascending = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-value')))
    expect(ascending.slice(2)).toEqual(['slow', 'bulk_delete', 'write_thing'])

    await page.getByRole('button', { name: 'Most failing' }).click()
    expect(await order(page, 'explode')).toContain('echo')
    await page.getByRole('button', { name: 'Most waited for approval' }).click()
    expect((await order(page, 'bulk_delete')).slice(0, 2)).toEqual(['bulk_delete', 'write_thing'])
    const waited = page.locator('tr[data-value="bulk_delete"] td').last()
    await expect.poll(() => waited.textContent(), { timeout: 15_000 }).toMatch(/^\d s$/)

    await page.getByRole('button', { name: 'Calls' }).click()
    await page.getByLabel('Window').selectOption('6h')
    const legacy = page.locator('tr[data-value="legacy_report"]')
    await expect.poll(() => legacy.count(), { timeout: 15_000 }).toBe(1)
    expect((await order(page, 'echo')).length).toBe(6)
    await expect.poll(() => legacy.locator('td').first().textContent(), { timeout: 15_000 }).toBe('4')
    await page.getByLabel('Window').selectOption('1h')
    await expect.poll(() => legacy.count(), { timeout: 15_000 }).toBe(0)
    await screenshot(page, 'health')

    // Agents: the helper's call, and its row leads to the agent's page with its charts.
    await page.getByLabel('Dimension').selectOption('agent')
    const agent = plane.agents.resolve('helper')!
    await order(page, agent)
    await page.getByRole('link', { name: agent }).click()
    await expect.poll(() => page.getByTestId('health-charts').getAttribute('data-calls'), { timeout: 15_000 }).toBe('1')
  })

  it("charts a skill's calls, percentiles and approval waits on its page", async () => {
    const page = await open('/health?dim=skill&window=1h&sort=p95&order=desc')
    await order(page, 'slow')
    await page.getByRole('link', { name: 'slow', exact: true }).click()
    const charts = page.getByTestId('health-charts')
    await expect.poll(() => charts.getAttribute('data-calls'), { timeout: 15_000 }).toBe('2')
    await charts.getByLabel('Chart window').selectOption('1h')
    await expect.poll(() => charts.getByRole('figure', { name: 'Duration percentiles' }).textContent(), { timeout: 15_000 }).toMatch(/p50.*p95.*p99/)
    await charts.scrollIntoViewIfNeeded()
    await screenshot(page, 'skill-health')
    // The approval waits of a skill that asked for approval.
    await page.goto(`${server.url}/skills/bulk_delete`)
    await expect.poll(() => page.getByTestId('health-charts').getAttribute('data-calls'), { timeout: 15_000 }).toBe('1')
    await expect.poll(() => page.getByRole('figure', { name: 'Approval waits' }).textContent(), { timeout: 15_000 }).toContain('Approval waits (1)')
  })
})
