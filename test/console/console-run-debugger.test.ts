import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import type { LanguageModelV3GenerateResult, LanguageModelV3Prompt, LanguageModelV3StreamResult } from '@ai-sdk/provider'
import { MockLanguageModelV3 } from 'ai/test'
import { z } from 'zod'
import { createSkillplane, defineSkill, type Skillplane } from '../../src/index.js'
import { startHttpServer } from '../../src/surfaces/http/index.js'
import { databases } from '../../src/test-support/databases.js'
import { silentLogger, testAgents, testSkills } from '../../src/test-support/fixtures.js'
import { callsTool, says, streamed } from '../../src/test-support/mock-model.js'
import { chromiumAvailable, cspViolations, launchChromium, screenshot, signIn, callApi } from '../../src/test-support/browser.js'

const sqlite = databases.find((d) => d.name === 'sqlite')!

const SYSTEM_PROMPT = 'You are the test helper. Sign in, then echo what you are asked.'
const PASSWORD = 'pw-never-shown-7731'
// What the mock model reports for the live run's two turns, and the prices of its tokens (US dollars per million).
const FIRST = { input: 1200, output: 30, cacheRead: 400 }
const SECOND = { input: 1500, output: 12, cacheRead: 1200 }
const PRICING = { inputPerMTok: 3, outputPerMTok: 15, cachedInputPerMTok: 0.3 }
// 800 uncached, 400 cached in and 30 out; then 300 uncached, 1200 cached in and 12 out.
const COST = (800 * 3 + 400 * 0.3 + 30 * 15 + 300 * 3 + 1200 * 0.3 + 12 * 15) / 1_000_000
const STREAMING = { chunkDelayInMs: 20 }

const asked = (prompt: LanguageModelV3Prompt): string =>
  prompt
    .filter((m) => m.role === 'user')
    .flatMap((m) => m.content)
    .map((part) => (part.type === 'text' ? part.text : ''))
    .join(' ')

/** A turn streamed as a model does, except that after its first chunk it holds everything else until `gate` opens. */
function heldAfterFirstChunk(turn: LanguageModelV3GenerateResult, gate: Promise<void>): LanguageModelV3StreamResult {
  const parts = streamed(turn).stream.getReader()
  let first = true
  return {
    stream: new ReadableStream({
      async pull(controller) {
        if (!first) await gate
        first = false
        const { done, value } = await parts.read()
        if (done) controller.close()
        else controller.enqueue(value)
      },
    }),
  }
}

describe.runIf(chromiumAvailable())('the run debugger and run compare in Chromium', () => {
  let plane: Skillplane
  let server: { url: string; close(): Promise<void> }
  let browser: Browser
  const keys: Record<string, string> = {}
  // The live run's first model call holds after its first chunk until the test has seen it running.
  let release = () => {}
  const released = new Promise<void>((resolve) => (release = resolve))
  // "live …": sign in (its password is a secret), then answer. "plain …": just answer. Anything else: echo the prompt, then answer.
  const model = new MockLanguageModelV3({
    doStream: async ({ prompt }) => {
      const text = asked(prompt)
      const called = prompt.some((m) => m.role === 'tool')
      if (text.startsWith('plain')) return streamed(says('ok'), STREAMING)
      if (text.startsWith('live')) {
        return called
          ? streamed(says('signed in and done', SECOND), STREAMING)
          : heldAfterFirstChunk(callsTool('sign_in', { user: 'oscar', password: PASSWORD }, 'call-1', FIRST), released)
      }
      return streamed(called ? says('all done') : callsTool('echo', { message: text }), STREAMING)
    },
  })
  const api = (path: string, key: string, body?: unknown) => callApi(server.url, path, key, body === undefined ? 'GET' : 'POST', body)
  const open = async (key: string): Promise<Page> => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage()
    page.setDefaultTimeout(15_000)
    await signIn(page, server.url, key)
    return page
  }
  const total = (page: Page, name: string) => page.locator(`[aria-label="Run totals"] [data-total="${name}"] dd`)

  beforeAll(async () => {
    const signInSkill = defineSkill({
      key: 'sign_in',
      description: 'Signs in to the test service',
      class: 'safe',
      agents: ['Helper'],
      input: z.object({ user: z.string(), password: z.string().meta({ writeOnly: true }) }),
      run: ({ user }) => ({ user, ok: true }),
    })
    plane = await createSkillplane({
      config: {
        skills: [...testSkills(), signInSkill],
        agents: [
          { ...testAgents![0]!, model, systemPrompt: SYSTEM_PROMPT, pricing: PRICING },
          { ...testAgents![1]!, model },
        ],
      },
      ...(await sqlite.create()),
      logger: silentLogger(),
      sync: true,
    })
    server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    for (const [name, role] of [
      ['oscar', 'operator'],
      ['vera', 'viewer'],
    ] as const)
      keys[name] = (await plane.people.keys.create({ name, role }, plane.now())).key
    browser = await launchChromium()
  })
  afterAll(async () => {
    expect(cspViolations).toEqual([])
    release()
    await browser?.close()
    await server?.close()
    await plane?.close()
  })

  it('shows a run live: a running model call, then each step timed, the totals the model reported, and what the model was sent', async () => {
    const page = await open(keys.oscar!)
    await page.goto(`${server.url}/agents/helper`)
    await page.getByLabel('Prompt').fill('live: sign in and finish')
    await page.getByRole('button', { name: 'Start run' }).click()
    await page.waitForURL(/\/runs\/[0-9A-Z]{26}$/)
    const runId = page.url().split('/').pop()!

    // The model has sent its first chunk and holds the rest: its step is on the page, running, on the timeline too.
    const firstCall = page.locator('article[data-step="0"][data-kind="model"]')
    await page.locator('article[data-step="0"][data-kind="model"][data-status="running"]').waitFor()
    await page.locator('figure[aria-label="Step timeline"] li[data-step="0"][data-status="running"]').waitFor()
    expect(await page.getByTestId('run-status').getAttribute('data-status')).toBe('running')
    expect(await firstCall.locator('[data-fact="finishReason"]').textContent()).toBe('still running')

    release()
    await page.locator('[data-testid="run-status"][data-status="completed"]').waitFor()
    await page.locator('article[data-step="0"][data-kind="model"][data-status="ok"]').waitFor()
    const stored = (await api(`/api/runs/${runId}`, keys.oscar!)).body
    expect(stored.steps.map((s: { kind: string }) => s.kind)).toEqual(['model', 'tool', 'model', 'text'])
    // Every step is a bar on the timeline, in order, each with its duration.
    const bars = page.locator('figure[aria-label="Step timeline"] li')
    expect(await bars.evaluateAll((items) => items.map((li) => li.getAttribute('data-kind')))).toEqual(['model', 'tool', 'model', 'text'])
    expect(await bars.nth(1).textContent()).toContain('tool sign_in')

    // The model call's card: its model, its tokens as the provider reported them, why it finished.
    expect(await firstCall.locator('h3').textContent()).toContain('mock-provider/mock-model-id')
    expect(await firstCall.locator('[data-fact="tokens"]').textContent()).toBe('1,200 / 30')
    expect(await firstCall.locator('[data-fact="cached"]').textContent()).toBe('400')
    expect(await firstCall.locator('[data-fact="finishReason"]').textContent()).toBe('tool-calls')
    expect(await firstCall.locator('[data-fact="cost"]').textContent()).toBe('$0.00297')
    expect(await firstCall.locator('[data-fact="duration"] [data-value]').getAttribute('data-value')).toBe(String(stored.steps[0].durationMs))

    // The header totals both turns, as the server does.
    await expect.poll(() => total(page, 'inputTokens').textContent()).toBe('2,700')
    expect(await total(page, 'outputTokens').textContent()).toBe('42')
    expect(await total(page, 'cachedInputTokens').textContent()).toBe('1,600')
    expect(await total(page, 'modelSteps').textContent()).toBe('2')
    expect(await total(page, 'costUsd').textContent()).toBe('$0.00441')
    expect(Number(await total(page, 'costUsd').locator('[data-value]').getAttribute('data-value'))).toBeCloseTo(COST, 12)
    expect(await total(page, 'durationMs').locator('[data-value]').getAttribute('data-value')).toBe(String(stored.totals.durationMs))
    expect(stored.totals).toMatchObject({ inputTokens: 2700, outputTokens: 42, cachedInputTokens: 1600, modelSteps: 2 })

    // Opened, the second model call shows what it was sent: the system prompt, the tools offered, the turns so far,
    // with the password the first turn passed redacted.
    const secondCall = page.locator('article[data-step="2"][data-kind="model"]')
    await secondCall.getByText('What the model was sent').click()
    const system = secondCall.getByLabel('System prompt')
    await system.waitFor()
    expect(await system.textContent()).toBe(SYSTEM_PROMPT)
    const tools = await secondCall.getByRole('list', { name: 'Tools offered' }).locator('code').allTextContents()
    expect(tools).toEqual(expect.arrayContaining(['echo', 'sign_in', 'write_thing']))
    const messages = secondCall.getByRole('list', { name: 'Messages' })
    expect(await messages.locator('li').evaluateAll((items) => items.map((li) => li.getAttribute('data-role')))).toEqual(['user', 'assistant', 'tool'])
    expect(await messages.textContent()).toContain('live: sign in and finish')
    expect(await page.content()).not.toContain(PASSWORD)
    await screenshot(page, 'run-debugger')

    // The same run as a waterfall of its call tree: the run, its model steps and the tool call it made.
    await page.getByRole('group', { name: 'View' }).getByRole('button', { name: 'Waterfall' }).click()
    await page.waitForURL(/\?view=waterfall$/)
    const waterfall = page.getByTestId('waterfall')
    await waterfall.waitFor()
    expect(await waterfall.textContent()).toContain('sign_in')
    expect(await page.locator('article[data-step]').count()).toBe(0)
  })

  it('compares two test runs of the agent that differ in one tool input, and highlights that step', async () => {
    for (const input of ['compare alpha', 'compare beta'])
      expect((await api('/api/agents/helper/test-runs', keys.oscar!, { input, expectTool: 'echo' })).body).toMatchObject({ verdict: 'pass' })
    const { items } = (await api('/api/agents/helper/runs?limit=2', keys.oscar!)).body
    const [beta, alpha] = items as Array<{ id: string; prompt: string }>

    const page = await open(keys.oscar!)
    await page.goto(`${server.url}/agents/helper`)
    const runs = page.getByRole('table', { name: 'Runs' })
    await runs.getByLabel(`Compare run ${beta!.id}`).check()
    expect(await page.getByRole('button', { name: /^Compare/ }).isDisabled()).toBe(true)
    await runs.getByLabel(`Compare run ${alpha!.id}`).check()
    await page.getByRole('button', { name: /^Compare/ }).click()
    await page.waitForURL(`**/agents/helper/runs/compare?a=${alpha!.id}&b=${beta!.id}`)

    const steps = page.getByRole('table', { name: 'Steps compared' })
    await steps.waitFor()
    const differs = await steps.locator('tbody tr').evaluateAll((rows) => rows.map((tr) => tr.getAttribute('data-differs')))
    expect(differs).toEqual(['', 'input output', '', ''])
    const first = steps.locator('tr[data-first-divergence]')
    expect(await first.getAttribute('data-row')).toBe('1')
    expect(await first.locator('td').nth(1).textContent()).toContain('"message": "compare alpha"')
    expect(await first.locator('td').nth(2).textContent()).toContain('"message": "compare beta"')
    expect(await page.getByTestId('divergence').textContent()).toContain('a different input')
    await screenshot(page, 'run-compare')
  })

  it('says so when the runs picked are missing, unknown or of different agents, and shows a viewer no compare page', async () => {
    const page = await open(keys.oscar!)
    await page.goto(`${server.url}/agents/helper/runs/compare?a=01ARZ3NDEKTSV4RRFFQ69G5FAV`)
    await page.getByText('Pick two runs to compare').waitFor()
    const { items } = (await api('/api/agents/helper/runs?limit=1', keys.oscar!)).body
    await page.goto(`${server.url}/agents/helper/runs/compare?a=${items[0].id}&b=01ARZ3NDEKTSV4RRFFQ69G5FAV`)
    await page.getByText('no run "01ARZ3NDEKTSV4RRFFQ69G5FAV"').waitFor()
    const other = (await api('/api/agents/other/runs', keys.oscar!, { prompt: 'plain answer' })).body
    expect(other).toMatchObject({ status: 'completed', agent: 'other' })
    await page.goto(`${server.url}/agents/helper/runs/compare?a=${items[0].id}&b=${other.id}`)
    await page.getByText('compare two runs of one agent').waitFor()
    expect(await page.getByRole('table', { name: 'Steps compared' }).count()).toBe(0)
    // A viewer reads no runs, so has no compare page either.
    const viewer = await open(keys.vera!)
    await viewer.goto(`${server.url}/agents/helper/runs/compare?a=${items[0].id}&b=${other.id}`)
    await viewer.getByRole('heading', { name: 'Not here' }).waitFor()
  })
})
