import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { Browser, Page } from 'playwright-core'
import { createSkillplane, defineSkill, type Skillplane } from '../../src/index.js'
import { startHttpServer } from '../../src/surfaces/http/index.js'
import { databases } from '../../src/test-support/databases.js'
import { admin, agentCaller, operator, silentLogger, testAgents, testSkills } from '../../src/test-support/fixtures.js'
import { chromiumAvailable, cspViolations, launchChromium, screenshot, signIn, callApi } from '../../src/test-support/browser.js'

const sqlite = databases.find((d) => d.name === 'sqlite')!

const failWith = defineSkill({
  key: 'fail_with',
  description: 'Throws the message it is given',
  class: 'safe',
  input: z.object({ message: z.string() }),
  run: ({ message }) => {
    throw new Error(message)
  },
})

describe.runIf(chromiumAvailable())('the audit search, export and conversation view in Chromium', () => {
  let plane: Skillplane
  let server: { url: string; close(): Promise<void> }
  let browser: Browser
  let key: string
  const open = async (): Promise<Page> => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true })).newPage()
    page.setDefaultTimeout(15_000)
    await signIn(page, server.url, key)
    return page
  }

  beforeAll(async () => {
    plane = await createSkillplane({
      config: { skills: [...testSkills(), failWith], agents: testAgents },
      ...(await sqlite.create()),
      logger: silentLogger(),
      sync: true,
    })
    server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    key = (await plane.people.keys.create({ name: 'alice', role: 'admin' }, plane.now())).key
    const conversationId = 'support-ticket-42'
    await plane.invoke('echo', { message: 'looking at the ticket' }, { caller: operator, conversationId })
    await plane.invoke('fail_with', { message: 'connection refused by db-7.internal' }, { caller: operator, conversationId })
    await plane.invoke('write_thing', { value: 'restart db-7' }, { caller: agentCaller('helper'), agent: 'helper', conversationId })
    await plane.invoke('echo', { message: 'waiting for the approver' }, { caller: operator, conversationId })
    for (let i = 0; i < 12; i++) await plane.invoke('echo', { message: `noise ${i}` }, { caller: admin })
    for (const message of ['connection refused by cache-1', 'quota exceeded', 'connection reset by peer'])
      await plane.invoke('fail_with', { message }, { caller: admin })
    browser = await launchChromium()
  })
  afterAll(async () => {
    expect(cspViolations).toEqual([])
    await browser?.close()
    await server?.close()
    await plane?.close()
  })

  it('searches with the other filters kept in the URL, and exports exactly the calls shown as a file', async () => {
    const page = await open()
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Audit' }).click()
    const rows = page.getByRole('table', { name: 'Calls' }).locator('tbody tr')
    await expect.poll(() => rows.count()).toBe(19)
    await page.getByLabel('search').fill('conn refused')
    await page.getByLabel('status').selectOption('error')
    await page.getByRole('button', { name: 'Filter' }).click()
    await expect.poll(() => rows.count()).toBe(2)
    expect(new URL(page.url()).searchParams.get('q')).toBe('conn refused')
    expect(new URL(page.url()).searchParams.get('status')).toBe('error')
    const expected = (await callApi(server.url, '/api/audit?q=conn%20refused&status=error', key)).body.items as Array<{ callId: string }>
    expect(expected).toHaveLength(2)
    expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-call')))).toEqual(expected.map((e) => e.callId))
    // A reload keeps the search.
    await page.reload()
    await expect.poll(() => rows.count()).toBe(2)
    await expect.poll(() => page.getByLabel('search').inputValue()).toBe('conn refused')
    await screenshot(page, 'audit-search')

    for (const [format, label] of [
      ['jsonl', 'JSON lines'],
      ['csv', 'CSV'],
    ] as const) {
      await page.getByText('Export', { exact: true }).click()
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('menuitem', { name: label }).click()])
      expect(download.suggestedFilename()).toMatch(new RegExp(`^audit-.*\\.${format}$`))
      const text = readFileSync((await download.path())!, 'utf8')
      if (format === 'jsonl') {
        expect(
          text
            .trimEnd()
            .split('\n')
            .map((line) => JSON.parse(line).callId),
        ).toEqual(expected.map((e) => e.callId))
      } else {
        const [header, ...records] = text.trimEnd().split('\r\n')
        expect(header!.split(',')[0]).toBe('callId')
        expect(records.map((r) => r.split(',')[0])).toEqual(expected.map((e) => e.callId))
        expect(records.every((r) => r.includes(',error,fail_with,'))).toBe(true)
      }
      await page.getByText('Export', { exact: true }).click()
    }
  })

  it("shows a conversation's calls in order with its approval request inline, linked from the audit and the call", async () => {
    const page = await open()
    await page.goto(`${server.url}/audit?q=refused+db`)
    await page.getByRole('link', { name: 'support-ticket-42' }).first().click()
    await page.getByRole('heading', { name: /Conversation/ }).waitFor()
    expect(new URL(page.url()).pathname).toBe('/conversations/support-ticket-42')
    const items = page.getByRole('list', { name: 'Timeline' }).locator(':scope > li')
    await expect.poll(() => items.count()).toBe(4)
    const texts = await items.allTextContents()
    expect(texts.map((t) => /echo|fail_with|write_thing/.exec(t)?.[0])).toEqual(['echo', 'fail_with', 'write_thing', 'echo'])
    // The request sits inside the call that asked for it, pending.
    const request = items.nth(2).getByRole('article', { name: 'Approval request for write_thing' })
    await expect.poll(() => request.textContent()).toMatch(/Approval request\s*pending/)
    await screenshot(page, 'conversation')

    // The call page links back to its conversation.
    await items.nth(1).getByRole('link').first().click()
    await page.getByRole('link', { name: 'support-ticket-42' }).click()
    await expect.poll(() => new URL(page.url()).pathname).toBe('/conversations/support-ticket-42')
  })
})
