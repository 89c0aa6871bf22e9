import { createServer } from 'node:http'
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { databases } from '../test-support/databases.js'
import { openTestPlane } from '../test-support/fixtures.js'
import { defineSkill } from '../skill/define-skill.js'
import { startHttpServer } from '../surfaces/http/start-http-server.js'
import { secretForms } from './secret-forms.js'

// A quote, a backslash, a slash, a space, URL-special and non-ASCII characters; its base64 has `+` and `/`.
const SECRET = 'pa"ss\\wörd/ +?&=~é>>>?!'
// Header values are Latin-1 on the wire: the HTTP skill's secret keeps to ASCII (quote and backslash included).
const HEADER_SECRET = 'k"ey\\with/quote +?>>>?'

const asciiJson = (value: unknown) => JSON.stringify(value).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
const upperAsciiJson = (value: unknown) =>
  JSON.stringify(value).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}`)
// PHP's json_encode escapes `/` too (and non-ASCII, in lower-case hex).
const slashed = (text: string) => text.replaceAll('/', '\\/')
// How a JSON library writes a whole JSON text, per form.
const JSON_TEXTS: Record<string, (value: unknown) => string> = {
  json: (v) => JSON.stringify(v),
  jsonAscii: asciiJson,
  jsonAsciiUpper: upperAsciiJson,
  jsonSlash: (v) => slashed(JSON.stringify(v)),
  jsonPhp: (v) => slashed(asciiJson(v)),
  jsonAsciiUpperSlash: (v) => slashed(upperAsciiJson(v)),
}
// Each form a secret is scrubbed in, as it appears inside a longer text.
const FORMS: Record<string, (secret: string) => string> = {
  exact: (s) => s,
  ...Object.fromEntries(Object.entries(JSON_TEXTS).map(([form, text]) => [form, (s: string) => text(s).slice(1, -1)])),
  uri: (s) => encodeURIComponent(s),
  form: (s) => new URLSearchParams({ s }).toString().slice(2),
  base64: (s) => Buffer.from(s).toString('base64'),
  base64Unpadded: (s) => Buffer.from(s).toString('base64').replace(/=+$/, ''),
  base64url: (s) => Buffer.from(s).toString('base64url'),
}
// What a careless skill returns: the JSON forms as a whole JSON text, as a JSON library writes { s: secret }.
const written = (form: string, s: string) => (JSON_TEXTS[form] ? JSON_TEXTS[form]({ s }) : FORMS[form]!(s))

/** The forms of `secret` found in any string of `value`, or of a JSON text inside one (a tool result's text, an audit row's error). */
function leaked(value: unknown, secret: string): string[] {
  const found = new Set<string>()
  const walk = (v: unknown): void => {
    if (typeof v === 'string') {
      for (const [form, encode] of Object.entries(FORMS)) if (v.includes(encode(secret))) found.add(form)
      if (/^[[{"]/.test(v)) {
        try {
          walk(JSON.parse(v))
        } catch {
          // Not JSON: its text was checked as it is.
        }
      }
    } else if (v !== null && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) {
        walk(k)
        walk(child)
      }
    }
  }
  walk(value)
  return [...found]
}

// Returns (or fails with) its secret in the form asked for, as a careless skill or service would.
const echoForm = defineSkill({
  key: 'echo_form',
  description: 'Returns its token in one encoding',
  class: 'safe',
  secrets: ['FORM_TOKEN'],
  input: z.object({ form: z.enum(Object.keys(FORMS) as [string, ...string[]]), fail: z.boolean().default(false) }),
  run: ({ form, fail }, ctx) => {
    const text = `the service said: ${written(form, ctx.secrets.get('FORM_TOKEN'))}`
    if (fail) throw new Error(text)
    return { text }
  },
})

describe('secretForms', () => {
  it('lists each form once, and nothing for a value too short to scrub or with a lone surrogate that cannot be URI-encoded', () => {
    expect(secretForms('abc')).toEqual([])
    expect(secretForms('plain-token')).toEqual(['plain-token', 'cGxhaW4tdG9rZW4=', 'cGxhaW4tdG9rZW4'])
    expect(secretForms('ab\ud800cd')).toContain('ab\\ud800cd')
    expect(secretForms('pass/wörd')).toEqual(
      expect.arrayContaining(['pass\\/wörd', 'pass/w\\u00f6rd', 'pass/w\\u00F6rd', 'pass\\/w\\u00f6rd', 'pass\\/w\\u00F6rd']),
    )
    // The test secrets really differ in each form, so the tests below can tell the forms apart.
    const forms = Object.values(FORMS).map((encode) => encode(SECRET))
    expect(new Set(forms).size).toBe(forms.length)
  })
})

describe.each(databases)('secret forms scrubbed on every surface, on $name', (database) => {
  const cleanup: Array<() => Promise<unknown>> = []
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step().catch(() => {})
  })

  it("blanks each form of a secret with a quote and a backslash out of HTTP results and errors, the audit rows, MCP tool results, and an HTTP skill's echoing service", async () => {
    // A service that quotes the credential it was sent back in a JSON error body, and base64url-encoded.
    const service = createServer((req, res) => {
      const key = String(req.headers['x-api-key'])
      const body = req.url === '/b64' ? { error: 'bad key', key64: Buffer.from(key).toString('base64url') } : { error: 'bad key', got: key }
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify(body))
    })
    service.listen(0, '127.0.0.1')
    await once(service, 'listening')
    cleanup.push(() => new Promise((resolve) => service.close(resolve)))
    const serviceUrl = `http://127.0.0.1:${(service.address() as AddressInfo).port}`

    const plane = await openTestPlane(database, {
      skills: [echoForm],
      httpSkills: [
        {
          key: 'echo_json',
          description: 'Calls a service that echoes the key',
          method: 'GET',
          url: `${serviceUrl}/json`,
          headers: { 'X-Api-Key': { secret: 'HEADER_TOKEN' } },
        },
        {
          key: 'echo_b64',
          description: 'Calls a service that echoes the key',
          method: 'GET',
          url: `${serviceUrl}/b64`,
          headers: { 'X-Api-Key': { secret: 'HEADER_TOKEN' } },
        },
      ],
    })
    cleanup.push(() => plane.close())
    await plane.values.secrets.set('FORM_TOKEN', SECRET)
    await plane.values.secrets.set('HEADER_TOKEN', HEADER_SECRET)
    const server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    cleanup.push(() => server.close())
    const key = (await plane.people.keys.create({ name: 'root', role: 'admin' }, plane.now())).key
    const api = async (path: string, body?: unknown) => {
      const response = await fetch(server.url + path, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      })
      return { status: response.status, text: await response.text() }
    }
    const client = new Client({ name: 'forms', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }))
    cleanup.push(() => client.close())

    for (const form of Object.keys(FORMS)) {
      const ok = await api('/api/skills/echo_form/invoke', { input: { form } })
      expect({ form, status: ok.status, leaked: leaked(JSON.parse(ok.text), SECRET) }).toEqual({ form, status: 200, leaked: [] })
      expect(ok.text, form).toContain('[REDACTED]')
      const failed = await api('/api/skills/echo_form/invoke', { input: { form, fail: true } })
      expect({ form, status: failed.status, leaked: leaked(JSON.parse(failed.text), SECRET) }).toEqual({ form, status: 502, leaked: [] })
      expect(failed.text, form).toContain('the service said: ')

      const viaMcp = await client.callTool({ name: 'echo_form', arguments: { form } })
      expect({ form, leaked: leaked(viaMcp, SECRET) }).toEqual({ form, leaked: [] })
      expect(JSON.stringify(viaMcp), form).toContain('[REDACTED]')
    }

    // The service's JSON body holds the header JSON-escaped (\" and \\), then base64url-encoded.
    const json = await api('/api/skills/echo_json/invoke', { input: {} })
    expect(json.status).toBe(502)
    expect(JSON.parse(json.text).error.message).toBe(
      `skill "echo_json" failed: HTTP 401 Unauthorized from GET ${serviceUrl}/json: {"error":"bad key","got":"[REDACTED]"}`,
    )
    const b64 = await api('/api/skills/echo_b64/invoke', { input: {} })
    expect(JSON.parse(b64.text).error.message).toBe(
      `skill "echo_b64" failed: HTTP 401 Unauthorized from GET ${serviceUrl}/b64: {"error":"bad key","key64":"[REDACTED]"}`,
    )

    const audit = await api('/api/audit?limit=100')
    expect(audit.status).toBe(200)
    const rows = JSON.parse(audit.text).items as unknown[]
    expect(rows.length).toBe(Object.keys(FORMS).length * 3 + 2)
    expect(leaked(rows, SECRET)).toEqual([])
    expect(leaked(rows, HEADER_SECRET)).toEqual([])
    expect(audit.text).toContain('[REDACTED]')
  })
})
