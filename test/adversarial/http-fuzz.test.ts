import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { waitFor } from '../../src/test-support/databases.js'
import { KEY_KINDS, startTarget, type Target } from './harness.js'
import { rounds, seed } from './campaign.js'

interface Operation {
  method: string
  /** OpenAPI path template, e.g. /api/approvals/{id}/approve. */
  path: string
}

// Keys that copies and merges mishandle, names that look like the real fields, and the usual suspects.
const KEY_NAMES = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 2, arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'input',
      'agent',
      'conversationId',
      'edgeId',
      'wait',
      'approvalId',
      'comment',
      'sopId',
      'prompt',
      'message',
      'count',
      'value',
      'ms',
      'ids',
      'skill',
      'level',
      'subject',
      'decision',
      'document',
      'signature',
      'tags',
      'enabled',
    ),
  },
)
const SCALARS = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom('', '\u0000', '../../etc/passwd', '%00', '\uD800', '🙂'.repeat(50), 'a'.repeat(5_000), "'; drop table audit_calls; --", '<script>x</script>'),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(-1, 0, 1, 2 ** 53, -(2 ** 31), 1e308),
)
const { json: VALUE } = fc.letrec((tie) => ({
  json: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    SCALARS,
    fc.array(tie('json'), { maxLength: 5 }),
    fc.dictionary(KEY_NAMES, tie('json'), { maxKeys: 5 }),
  ),
}))
// Inputs with credential-like names are redacted in the audit on purpose: not compared.
const SECRET_LOOKING = /pass|secret|token|key|auth|credential|cookie|pwd|session|login|leaky/i
const parse = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
const nested = (depth: number) => '{"input":{"a":' + '['.repeat(depth) + ']'.repeat(depth) + '}}'

/** A body: arbitrary JSON, a plausible envelope with hostile contents, garbage text, or deep nesting. */
const BODY = fc.oneof(
  { weight: 3, arbitrary: VALUE.map((v) => JSON.stringify(v)) },
  { weight: 4, arbitrary: fc.dictionary(KEY_NAMES, VALUE, { maxKeys: 4 }).map((v) => JSON.stringify(v)) },
  { weight: 4, arbitrary: fc.record({ input: fc.dictionary(KEY_NAMES, VALUE, { maxKeys: 4 }) }, { requiredKeys: [] }).map((v) => JSON.stringify(v)) },
  { weight: 2, arbitrary: fc.string({ maxLength: 200 }) },
  { weight: 1, arbitrary: fc.constantFrom('', '{', '[]', 'null', '"x"', '{"input": {', '\u0000', nested(70), nested(20_000)) },
  // The raw text of a __proto__ key: JSON.stringify of a generated object can't produce it.
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '{"input":{"value":"ok","__proto__":{"value":"hidden"}}}',
      '{"__proto__":{"input":{}}}',
      '{"input":{"constructor":{"prototype":{"x":1}}}}',
    ),
  },
)
const SEGMENT = fc.oneof(
  { weight: 3, arbitrary: fc.string({ minLength: 1, maxLength: 30 }).map(encodeURIComponent) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'echo',
      'echo_input',
      'file_ticket',
      'helper',
      'write_thing',
      'fleet',
      '..',
      '%2e%2e',
      '%2F',
      '%00',
      'a'.repeat(300),
      '__proto__',
      'constructor',
    ),
  },
)
const QUERY = fc.dictionary(
  fc.constantFrom('limit', 'cursor', 'status', 'skill', 'agent', 'caller', 'from', 'to', 'traceId', 'q', 'tag', 'category', 'wait', '__proto__'),
  fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('-1', '0', '501', '1e9', 'NaN', '2026-13-45', 'running')),
  { maxKeys: 3 },
)
// Mostly real keys of every kind, so requests get past authentication and reach the routes.
const HEADER_KEYS = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...KEY_KINDS.filter((k) => k !== 'none' && k !== 'garbage')) },
  { weight: 1, arbitrary: fc.constantFrom('none' as const, 'garbage' as const, 'quote' as const, 'long' as const) },
)

describe('fuzzing every route of the OpenAPI document', () => {
  let t: Target
  let operations: Operation[]
  beforeAll(async () => {
    t = await startTarget()
    const doc = JSON.parse((await t.send('GET', '/openapi.json', t.keys.admin)).text) as { paths: Record<string, Record<string, unknown>> }
    operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => ({ method: method.toUpperCase(), path })))
    operations.push({ method: 'POST', path: '/mcp' }, { method: 'GET', path: '/mcp' }, { method: 'DELETE', path: '/mcp' })
  })
  afterAll(() => t.close())

  it('never answers 500, never crashes, always answers JSON, and leaves no audit row running', async () => {
    const statuses = new Map<number, number>()
    const defects: string[] = []
    const ran: Array<{ callId: string; input: string; where: string }> = []
    let requests = 0
    const runs = rounds(40)
    for (const operation of operations) {
      await fc.assert(
        fc.asyncProperty(fc.array(SEGMENT, { minLength: 3, maxLength: 3 }), QUERY, BODY, HEADER_KEYS, async (segments, query, body, who) => {
          let i = 0
          const path = operation.path.replace(/\{[^}]+\}/g, () => segments[i++]!)
          const search = new URLSearchParams(query).toString()
          const key = who === 'quote' ? 'sp_abc"def' : who === 'long' ? 'sp_' + 'x'.repeat(10_000) : t.keys[who]
          const answer = await t.send(operation.method, path + (search ? `?${search}` : ''), key, body)
          requests++
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1)
          const where = `${operation.method} ${path}?${search} as ${who} with ${body.slice(0, 120)}`
          // What ran, or waits for an approver, must be on record exactly as it was sent.
          if ((answer.status === 200 || answer.status === 202) && /\/invoke$/.test(path)) {
            const sent = parse(body) as { input?: unknown } | undefined
            const callId = (parse(answer.text) as { callId?: string } | undefined)?.callId
            if (sent && callId && !SECRET_LOOKING.test(body)) ran.push({ callId, input: JSON.stringify(sent.input ?? {}), where })
          }
          if (answer.status === 0) defects.push(`no answer (connection dropped): ${where}`)
          else if (answer.status === 500) defects.push(`500: ${where}: ${answer.text.slice(0, 200)}`)
          else if (answer.status === 503 && answer.text.includes('the database')) defects.push(`database 503 on a healthy database: ${where}`)
          // Prometheus's own format, the event stream and the audit export are the successes that are not JSON; their failures are.
          else if (operation.path === '/metrics' && answer.status === 200) {
            if (!answer.type.startsWith('text/plain; version=0.0.4')) defects.push(`not the Prometheus text format (${answer.type}): ${where}`)
          } else if ((operation.path === '/api/events' || operation.path === '/api/runs/{id}/events') && answer.status === 200) {
            if (!answer.type.startsWith('text/event-stream')) defects.push(`not an event stream (${answer.type}): ${where}`)
          } else if (operation.path === '/api/audit/export' && answer.status === 200) {
            if (!/^(application\/x-ndjson|text\/csv)/.test(answer.type)) defects.push(`neither JSON lines nor CSV (${answer.type}): ${where}`)
          } else if (!operation.path.startsWith('/mcp') && !answer.type.includes('application/json')) defects.push(`not JSON (${answer.type}): ${where}`)
          return true
        }),
        { seed, numRuns: runs },
      )
    }
    for (const call of ran) {
      const row = await t.plane.audit.get(call.callId)
      if (!row) defects.push(`no audit row for a call that ran: ${call.where}`)
      else if (JSON.stringify(row.input) !== call.input)
        defects.push(`audited input differs from what was sent: ${JSON.stringify(row.input).slice(0, 120)} vs ${call.input.slice(0, 120)}: ${call.where}`)
    }
    const health = await t.send('GET', '/api/health', null)
    await t.plane.close().catch(() => {}) // drains the audit queue; the next assertion reads the store directly
    const reopened = await import('../../src/store/open-database.js').then((m) => m.openDatabase({ dataDir: t.plane.status.dataDir }))
    let stuck = -1
    await waitFor(async () => {
      stuck = Number(
        (
          await reopened.db
            .selectFrom('audit_calls')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('status', '=', 'running')
            .executeTakeFirstOrThrow()
        ).n,
      )
      return stuck === 0
    }, 5_000).catch(() => {})
    await reopened.close()
    const fiveHundreds = [...statuses].filter(([s]) => s >= 500).reduce((n, [, c]) => n + c, 0)
    console.log(
      `HTTP fuzz (seed ${seed}): ${operations.length} operations, ${requests} requests (${ran.length} calls that ran or await approval, checked against the audit), statuses ${JSON.stringify(Object.fromEntries(statuses))}, ` +
        `5xx ${fiveHundreds} (documented skill outcomes: 502 executor/output, 503 unavailable, 504 timeout), unexplained ${defects.length}, crashes ${health.status === 200 ? 0 : 1}, rows stuck running ${stuck}`,
    )
    expect(defects).toEqual([])
    expect(health.status).toBe(200)
    expect(stuck).toBe(0)
  })
})
