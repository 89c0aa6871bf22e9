import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { MockLanguageModelV3 } from 'ai/test'
import { z } from 'zod'
import { createSkillplane, defineSkill, type Skillplane } from '../../src/index.js'
import { startHttpServer } from '../../src/surfaces/http/index.js'
import { databases, waitFor } from '../../src/test-support/databases.js'
import { silentLogger, testAgents, testSkills } from '../../src/test-support/fixtures.js'
import { callsTool, says, streamed } from '../../src/test-support/mock-model.js'
import { chromiumAvailable, cspViolations, launchChromium, screenshot, signIn, callApi } from '../../src/test-support/browser.js'

const sqlite = databases.find((d) => d.name === 'sqlite')!

/** Skills that ask the run's person: a form, and a link to open. */
const asking = [
  defineSkill({
    key: 'ask_name',
    description: 'Ask the person their name',
    class: 'safe',
    agents: ['Helper'],
    input: z.object({}),
    run: async (_input, ctx) =>
      ctx.client.elicit(
        {
          message: 'Who are you?',
          requestedSchema: {
            type: 'object',
            properties: {
              name: { type: 'string', title: 'Name', minLength: 1 },
              age: { type: 'integer', title: 'Age', minimum: 0 },
              password: { type: 'string', title: 'Password' },
            },
            required: ['name'],
          },
        },
        { signal: ctx.signal },
      ),
  }),
  defineSkill({
    key: 'ask_login',
    description: 'Ask the person to log in',
    class: 'safe',
    agents: ['Helper'],
    input: z.object({}),
    run: async (_input, ctx) =>
      ctx.client.elicit(
        {
          message: 'Log in',
          requestedSchema: {
            type: 'object',
            // password is secret by its name, pin by its schema (x-secret, which the console doesn't read itself); user is neither.
            properties: {
              user: { type: 'string', title: 'User' },
              password: { type: 'string', title: 'Password' },
              pin: { type: 'string', title: 'PIN', 'x-secret': true },
            },
            required: ['user', 'password', 'pin'],
          },
        },
        { signal: ctx.signal },
      ),
  }),
  defineSkill({
    key: 'ask_link',
    description: 'Send the person to a link',
    class: 'safe',
    agents: ['Helper'],
    input: z.object({}),
    run: async (_input, ctx) =>
      ctx.client.elicit({ mode: 'url', message: 'Sign the form', url: 'https://example.com/sign', elicitationId: 'e1' }, { signal: ctx.signal }),
  }),
]

describe.runIf(chromiumAvailable())("a run's tool call asking a person, answered in the console in Chromium", () => {
  let plane: Skillplane
  let server: { url: string; close(): Promise<void> }
  let browser: Browser
  let oscar = ''

  beforeAll(async () => {
    // Each run's prompt names the tool its model calls (so each test stands alone); once the tool has answered, it is done.
    const asks: Record<string, string> = { 'who am I?': 'ask_name', 'sign it': 'ask_link', 'log me in': 'ask_login' }
    const model = new MockLanguageModelV3({
      doStream: async ({ prompt }) => {
        if (prompt.some((message) => message.role === 'tool')) return streamed(says('done'))
        const said = JSON.stringify(prompt.filter((message) => message.role === 'user'))
        return streamed(callsTool(Object.entries(asks).find(([words]) => said.includes(words))![1], {}))
      },
    })
    plane = await createSkillplane({
      config: { skills: [...testSkills(), ...asking], agents: [{ ...testAgents![0]!, model }, testAgents![1]!] },
      ...(await sqlite.create()),
      logger: silentLogger(),
      sync: true,
    })
    server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    oscar = (await plane.people.keys.create({ name: 'oscar', role: 'operator' }, plane.now())).key
    browser = await launchChromium()
  })
  afterAll(async () => {
    expect(cspViolations).toEqual([])
    await browser?.close()
    await server?.close()
    await plane?.close()
  })

  it("shows the run waiting; the person fills the form made from the request's schema, and the call goes on with the answer", async () => {
    const started = await callApi(server.url, '/api/agents/helper/runs', oscar, 'POST', { prompt: 'who am I?', wait: false })
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage()
    page.setDefaultTimeout(15_000)
    await signIn(page, server.url, oscar)
    await page.goto(`${server.url}/runs/${started.body.id}`)
    const step = page.locator('article[data-kind="input"][data-status="awaiting_input"]')
    await step.waitFor()
    await page.getByTestId('awaiting-input').waitFor()
    expect(await step.textContent()).toContain('Who are you?')
    await step.getByLabel(/Name/).fill('Oscar')
    await step.getByLabel(/Age/).fill('41')
    // A secret-named field is typed unseen, and kept and shown redacted.
    expect(await step.getByLabel(/Password/).getAttribute('type')).toBe('password')
    await step.getByLabel(/Password/).fill('open-sesame-42')
    await screenshot(page, 'run-awaiting-input')
    await step.getByRole('button', { name: 'Accept' }).click()
    await page.locator('[data-testid="run-status"][data-status="completed"]').waitFor()
    const answered = page.locator('article[data-kind="input"][data-status="accepted"]')
    await answered.waitFor()
    expect(await answered.textContent()).toContain('[REDACTED]')
    expect(await page.content()).not.toContain('open-sesame-42')
    const run = await callApi(server.url, `/api/runs/${started.body.id}`, oscar)
    expect(run.body.steps.find((s: any) => s.kind === 'tool').output).toEqual({ action: 'accept', content: { name: 'Oscar', age: 41, password: '[REDACTED]' } })
    expect(run.body.inputs[0]).toMatchObject({ status: 'accepted', answeredBy: { name: 'oscar' }, content: { name: 'Oscar', age: 41, password: '[REDACTED]' } })
  })

  it('shows a URL-mode request as its link, with done and cancel', async () => {
    const started = await callApi(server.url, '/api/agents/helper/runs', oscar, 'POST', { prompt: 'sign it', wait: false })
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage()
    page.setDefaultTimeout(15_000)
    await signIn(page, server.url, oscar)
    await page.goto(`${server.url}/runs/${started.body.id}`)
    const step = page.locator('article[data-kind="input"][data-status="awaiting_input"]')
    await step.waitFor()
    expect(await step.getByRole('link', { name: 'https://example.com/sign' }).getAttribute('href')).toBe('https://example.com/sign')
    await step.getByRole('button', { name: 'Cancel' }).click()
    await page.locator('[data-testid="run-status"][data-status="completed"]').waitFor()
    await waitFor(async () => (await callApi(server.url, `/api/runs/${started.body.id}`, oscar)).body.inputs[0]?.status === 'cancelled')
    const run = await callApi(server.url, `/api/runs/${started.body.id}`, oscar)
    expect(run.body.steps.find((s: any) => s.kind === 'tool').output).toEqual({ action: 'cancel' })
  })

  it('types the fields the server marks secret (password by its name, pin by its schema) unseen, and the rest in clear', async () => {
    const started = await callApi(server.url, '/api/agents/helper/runs', oscar, 'POST', { prompt: 'log me in', wait: false })
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage()
    page.setDefaultTimeout(15_000)
    await signIn(page, server.url, oscar)
    await page.goto(`${server.url}/runs/${started.body.id}`)
    const step = page.locator('article[data-kind="input"][data-status="awaiting_input"]')
    await step.waitFor()
    expect(await step.textContent()).toContain('Log in')
    expect(await step.getByLabel(/Password/).getAttribute('type')).toBe('password')
    expect(await step.getByLabel(/PIN/).getAttribute('type')).toBe('password')
    expect(await step.getByLabel(/User/).getAttribute('type')).toBe('text')
    await step.getByRole('button', { name: 'Decline' }).click()
    await page.locator('[data-testid="run-status"][data-status="completed"]').waitFor()
  })
})
