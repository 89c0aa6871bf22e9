import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { createSkillplane, defineSkill, z, type Skillplane } from '../../src/index.js'
import { startHttpServer } from '../../src/surfaces/http/index.js'
import { databases, tempDir } from '../../src/test-support/databases.js'
import { silentLogger, testAgents, testSkills } from '../../src/test-support/fixtures.js'
import { chromiumAvailable, cspViolations, launchChromium, screenshot, signIn } from '../../src/test-support/browser.js'
import { enrollAndStart, startManager } from '../edges/edge-harness.js'

const sqlite = databases.find((d) => d.name === 'sqlite')!
const MANY = 10_000

const manySkills = () =>
  Array.from({ length: MANY }, (_, i) =>
    defineSkill({
      key: `bulk_${String(i).padStart(5, '0')}`,
      description: `Bulk skill number ${i} for the inventory's scale`,
      class: i % 100 === 0 ? 'mutating' : 'safe',
      input: z.object({ n: z.number() }),
      run: ({ n }) => ({ n }),
    }),
  )

const shapes = defineSkill({
  key: 'book_maintenance',
  description: 'Book a maintenance window for a host in degrees Celsius rooms',
  class: 'safe',
  input: z.object({
    target: z.object({ host: z.string().min(1), port: z.number().int().default(443) }),
    tags: z.array(z.string()).default([]),
    mode: z.enum(['rolling', 'all-at-once']).default('rolling'),
  }),
  run: (input) => input,
})

describe.runIf(chromiumAvailable())('the console with many skills, nested forms and the keyboard', () => {
  let plane: Skillplane
  let server: { url: string; close(): Promise<void> }
  let browser: Browser
  let admin: string
  const open = async (): Promise<Page> => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage()
    page.setDefaultTimeout(15_000)
    await signIn(page, server.url, admin)
    return page
  }

  beforeAll(async () => {
    plane = await createSkillplane({
      config: { skills: [...testSkills(), shapes, ...manySkills()], agents: testAgents },
      ...(await sqlite.create()),
      logger: silentLogger(),
      sync: true,
    })
    server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    admin = (await plane.people.keys.create({ name: 'alice', role: 'admin' }, plane.now())).key
    browser = await launchChromium()
  })
  afterAll(async () => {
    // Everything the pages did stayed within the console's Content-Security-Policy.
    expect(cspViolations).toEqual([])
    await browser?.close()
    await server?.close()
    await plane?.close()
  })

  it('lists ten thousand skills in a virtualised table, scrolls to the last, searches and filters', async () => {
    const page = await open()
    const total = plane.skills.list().length
    await expect.poll(() => page.getByText(/^\d+ skills$/).textContent()).toBe(`${total} skills`)
    // Only the rows in view (and a few either side) are in the page.
    const rendered = await page.locator('.skills-table [role="row"]').count()
    expect(rendered).toBeGreaterThan(5)
    expect(rendered).toBeLessThan(80)
    await page.locator('.grid-body').evaluate((body) => (body.scrollTop = body.scrollHeight))
    await page.getByRole('link', { name: `bulk_${String(MANY - 1).padStart(5, '0')}` }).waitFor()
    expect(await page.locator('.skills-table [role="row"]').count()).toBeLessThan(80)

    await page.getByLabel('class').selectOption('mutating')
    const expected = plane.skills.list().filter((s) => s.class === 'mutating').length
    await expect.poll(() => page.getByText(/^\d+ skills?$/).textContent()).toBe(`${expected} skills`)
    await page.getByLabel('class').selectOption('')

    await page.getByRole('searchbox').fill('celsius maintenance window')
    await page.getByRole('searchbox').press('Enter')
    await expect.poll(() => page.locator('.skills-table [role="row"]').nth(1).textContent()).toContain('book_maintenance')
    expect(page.url()).toContain('q=celsius')
    await screenshot(page, 'skills-search')
  })

  it('makes a form with nested objects, arrays, enums and defaults, and invokes it by keyboard', async () => {
    const page = await open()
    await page.goto(`${server.url}/skills/book_maintenance`)
    await page.locator('#root_target_host').focus()
    await page.keyboard.type('db-7')
    expect(await page.locator('#root_target_port').inputValue()).toBe('443')
    const chosen = () => page.locator('#root_mode option:checked').textContent()
    expect(await chosen()).toBe('rolling')
    await page.locator('#root_mode').selectOption({ label: 'all-at-once' })
    expect(await chosen()).toBe('all-at-once')
    await page.getByRole('button', { name: 'Add' }).click()
    await page.locator('#root_tags_0').fill('weekly')
    await page.locator('#root_target_host').press('Enter')
    await expect.poll(() => page.getByTestId('invoke-result').textContent()).toContain('"host": "db-7"')
    await screenshot(page, 'skill-nested-form')
    const [row] = (await plane.audit.query({ skill: 'book_maintenance', limit: 1 })).items
    expect(row).toMatchObject({ status: 'ok', input: { target: { host: 'db-7', port: 443 }, tags: ['weekly'], mode: 'all-at-once' } })
  })
})

describe.runIf(chromiumAvailable())('the console invoking a host skill on a chosen edge', () => {
  it('picks among the online edges offering it, and the call runs on the one picked', async () => {
    const manager = await startManager({ dataDir: tempDir() })
    await enrollAndStart(manager, 'edge-a')
    await enrollAndStart(manager, 'edge-b')
    const browser = await launchChromium()
    try {
      const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage()
      page.setDefaultTimeout(15_000)
      await signIn(page, manager.url, manager.adminKey)
      await page.goto(`${manager.url}/skills/host_load`)
      const picker = page.getByLabel('Edge')
      await expect.poll(() => picker.locator('option').allTextContents()).toEqual(['edge-a', 'edge-b'])
      await picker.selectOption({ label: 'edge-b' })
      await page.getByRole('button', { name: 'Invoke' }).click()
      await expect.poll(() => page.getByTestId('invoke-result').textContent()).toContain('"ok": true')
      await screenshot(page, 'skill-edge')
      const [row] = (await manager.plane.audit.query({ skill: 'host_load', limit: 1 })).items
      expect(row).toMatchObject({ status: 'ok', edgeName: 'edge-b' })
    } finally {
      await browser.close()
    }
  })
})
