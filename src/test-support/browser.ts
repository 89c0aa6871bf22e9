import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'

/** Debian's Chromium (apt install chromium), never a downloaded browser; SKILLPLANE_CHROMIUM overrides. */
export const CHROMIUM = process.env.SKILLPLANE_CHROMIUM ?? '/usr/bin/chromium'

/**
 * Whether the browser tests can run here. CI sets SKILLPLANE_REQUIRE_CHROMIUM=1 so that a missing
 * browser fails the run instead of skipping the console's tests.
 */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true
  if (process.env.SKILLPLANE_REQUIRE_CHROMIUM === '1') throw new Error(`SKILLPLANE_REQUIRE_CHROMIUM=1 but there is no Chromium at ${CHROMIUM}`)
  console.warn(`\n!! No Chromium at ${CHROMIUM}: the console's browser tests are SKIPPED. Install Debian's chromium package.\n`)
  return false
}

/** Headless Chromium that reaches nothing but the test's own servers (this network is closed). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
}

/** Screenshots go to the test output (test-output/console, not committed), one per page visited. */
export const SCREENSHOTS = join(import.meta.dirname, '../../test-output/console')

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true })
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true })
}

/** What Chromium refused under the console's Content-Security-Policy, in every page signed in: tests expect none. */
export const cspViolations: string[] = []

/** Sign in through the console's own form. */
export async function signIn(page: Page, url: string, key: string): Promise<void> {
  // Chromium fires securitypolicyviolation for each refusal (eval included), which the page reports here.
  await page.addInitScript(
    "document.addEventListener('securitypolicyviolation', (e) => console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI))",
  )
  page.on('console', (message) => {
    if (message.type() === 'error' && message.text().startsWith('CSP violation:')) cspViolations.push(message.text())
  })
  await page.goto(url)
  await page.getByLabel('API key').fill(key)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByTestId('who').waitFor()
}

/** One API request with a key, for tests that set up or check what the console shows. */
export async function callApi(url: string, path: string, key: string, method = 'GET', body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(url + path, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: response.status, body: (await response.json()) as any }
}
