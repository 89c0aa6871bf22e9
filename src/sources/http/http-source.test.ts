import { readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { databases, tempDir } from '../../test-support/databases.js'
import { admin, approvalIdOf, openTestPlane } from '../../test-support/fixtures.js'
import type { SkillplaneConfig } from '../../config/index.js'
import type { Skillplane } from '../../agents/index.js'
import { startHttpServer } from '../../surfaces/http/index.js'
import type { SourcesReport } from '../skill-source/index.js'
import { startTestService, TEST_TOKEN, type Received } from '../../test-support/http-test-service.js'

const SPEC_FILE = join(import.meta.dirname, 'fixtures/inventory.openapi.json')
const SPEC = readFileSync(SPEC_FILE, 'utf8')

let service: { url: string; received: Received[]; close(): Promise<void> }
beforeAll(async () => {
  service = await startTestService(SPEC)
})
afterAll(() => service.close())

const planes: Skillplane[] = []
afterEach(async () => {
  await Promise.all(planes.splice(0).map((p) => p.close()))
})

const inventory = (extra: Record<string, unknown> = {}) => ({
  name: 'inv',
  spec: SPEC_FILE,
  baseUrl: `${service.url}/api`,
  auth: { type: 'bearer' as const, secret: 'INV_TOKEN' },
  ...extra,
})

describe.each(databases)('OpenAPI sources on $name', (database) => {
  const open = async (config: SkillplaneConfig) => {
    const plane = await openTestPlane(database, config)
    planes.push(plane)
    return plane
  }

  it('needs its bearer secret until it is set, sends it, and scrubs it from results, errors and the audit', async () => {
    const plane = await open({ openapi: [inventory()] })
    const whoami = plane.skills.get('inv_who_am_i')!
    expect(whoami).toMatchObject({ source: 'http', class: 'safe', secrets: ['INV_TOKEN'] })
    expect(plane.skills.connectionState(whoami, { caller: admin, agentId: null })).toMatchObject({ state: 'needs_auth', missing: { secrets: ['INV_TOKEN'] } })
    // Operations whose security is [] are public: no secret, ready at once.
    expect(plane.skills.get('inv_get_health')!.secrets).toEqual([])
    expect(await plane.invoke('inv_get_health', {}, { caller: admin })).toMatchObject({ ok: true, data: { status: 'ok' } })
    const before = service.received.length
    const refused = await plane.invoke('inv_who_am_i', {}, { caller: admin })
    expect(refused).toMatchObject({ ok: false, error: { code: 'needs_auth', message: expect.stringContaining('skillplane secrets set INV_TOKEN') } })
    expect(service.received.length).toBe(before)

    await plane.values.secrets.set('INV_TOKEN', TEST_TOKEN)
    expect(plane.skills.connectionState(whoami, { caller: admin, agentId: null }).state).toBe('ready')
    const echoed = await plane.invoke('inv_who_am_i', {}, { caller: admin })
    expect(echoed).toEqual({ ok: true, data: { authorization: 'Bearer [REDACTED]', trace: null }, callId: expect.any(String) })
    expect(service.received.at(-1)!.headers.authorization).toBe(`Bearer ${TEST_TOKEN}`)
    const failed = await plane.invoke('inv_fail_loudly', {}, { caller: admin })
    expect(failed).toMatchObject({ ok: false, error: { code: 'executor_error', message: expect.stringContaining('HTTP 500') } })
    expect(JSON.stringify(failed)).toContain('token [REDACTED] is not allowed')
    expect(JSON.stringify(failed)).not.toContain(TEST_TOKEN)
    const rows = await plane.audit.query({ limit: 20 })
    expect(rows.items.map((r) => r.skill)).toEqual(expect.arrayContaining(['inv_who_am_i', 'inv_fail_loudly']))
    expect(JSON.stringify(rows)).not.toContain(TEST_TOKEN)
  })
})

describe('OpenAPI sources', () => {
  const open = async (config: SkillplaneConfig) => {
    const plane = await openTestPlane(databases[0]!, config)
    planes.push(plane)
    return plane
  }
  const ready = async (config: SkillplaneConfig) => {
    const plane = await open(config)
    await plane.values.secrets.set('INV_TOKEN', TEST_TOKEN)
    return plane
  }

  it('makes one skill per operation, with schemas from parameters and $ref-resolved bodies, and classes from methods', async () => {
    const plane = await open({ openapi: [inventory({ classes: { getMotd: 'mutating' } })] })
    const keys = plane.skills
      .list()
      .filter((s) => s.source === 'http')
      .map((s) => s.key)
      .sort()
    expect(keys).toEqual([
      'inv_create_item',
      'inv_delete_item',
      'inv_fail_loudly',
      'inv_get_health',
      'inv_get_huge',
      'inv_get_item',
      'inv_get_motd',
      'inv_get_slow',
      'inv_go_elsewhere',
      'inv_hop_home',
      'inv_list_items',
      'inv_patch_items_item_id',
      'inv_who_am_i',
    ])
    const create = plane.skills.get('inv_create_item')!
    expect(create).toMatchObject({ class: 'mutating', category: 'inv', tags: ['openapi', 'items'], description: 'Add an item' })
    expect(create.input.jsonSchema).toEqual({
      type: 'object',
      additionalProperties: false,
      required: ['body'],
      properties: {
        body: {
          type: 'object',
          required: ['name', 'quantity'],
          properties: {
            name: { type: 'string', minLength: 1 },
            quantity: { type: 'integer', minimum: 0 },
            location: { type: 'object', properties: { site: { type: 'string' }, shelf: { type: ['string', 'null'] } } },
          },
        },
      },
    })
    expect(plane.skills.get('inv_get_item')!.input.jsonSchema).toMatchObject({
      required: ['itemId'],
      properties: { itemId: { type: 'string', description: "The item's id" } },
    })
    expect(plane.skills.get('inv_list_items')!).toMatchObject({
      class: 'safe',
      title: 'List items',
      description: 'List the items in stock, optionally by tag.',
    })
    expect(plane.skills.get('inv_delete_item')!.class).toBe('dangerous')
    // No operationId: the key comes from the method and path; an optional body stays optional.
    expect(plane.skills.get('inv_patch_items_item_id')!).toMatchObject({ class: 'mutating', description: 'Change the quantity (no operationId)' })
    expect(plane.skills.get('inv_patch_items_item_id')!.input.jsonSchema).toMatchObject({ required: ['itemId'], properties: { body: { type: 'object' } } })
    expect(plane.skills.get('inv_get_motd')!.class).toBe('mutating')
    // A form body can't be sent: the operation is reported, not registered.
    const report = openapi(plane.sources.report())
    expect(report).toEqual([
      {
        name: 'inv',
        spec: SPEC_FILE,
        baseUrl: `${service.url}/api`,
        state: 'loaded',
        skills: keys,
        problems: [expect.stringMatching(/^PUT \/upload: its request body is multipart\/form-data; only JSON bodies are sent; skipped$/)],
      },
    ])
  })

  it('reads OpenAPI 3.0 schemas as JSON Schema: nullable and boolean exclusive bounds rewritten', async () => {
    const dir = tempDir()
    const file = join(dir, 'v30.yaml')
    writeFileSync(
      file,
      [
        'openapi: 3.0.3',
        `servers: [{ url: '${service.url}/echo' }]`,
        'paths:',
        '  /orders:',
        '    post:',
        '      operationId: placeOrder',
        '      requestBody:',
        '        content:',
        '          application/json:',
        '            schema:',
        '              type: object',
        '              properties:',
        '                note: { type: string, nullable: true }',
        '                size: { type: number, minimum: 0, exclusiveMinimum: true, maximum: 10, exclusiveMaximum: false }',
      ].join('\n'),
    )
    const plane = await open({ openapi: [{ name: 'shop', spec: file }] })
    expect(plane.skills.get('shop_place_order')!.input.jsonSchema).toEqual({
      type: 'object',
      additionalProperties: false,
      properties: {
        body: {
          type: 'object',
          properties: { note: { type: ['string', 'null'] }, size: { type: 'number', exclusiveMinimum: 0, maximum: 10 } },
        },
      },
    })
    expect(await plane.invoke('shop_place_order', { body: { note: null, size: 0 } }, { caller: admin })).toMatchObject({
      ok: false,
      error: { code: 'invalid_input', message: expect.stringContaining('/body/size') },
    })
    expect(await plane.invoke('shop_place_order', { body: { note: null, size: 2 } }, { caller: admin })).toMatchObject({
      ok: true,
      data: { method: 'POST', path: '/echo/orders', body: { note: null, size: 2 } },
    })
  })

  it('sends path, query, header and body parameters', async () => {
    const plane = await ready({ openapi: [inventory()] })
    const listed = await plane.invoke('inv_list_items', { tag: 'a b&c', limit: 1, 'X-Trace': 't-1' }, { caller: admin })
    expect(listed).toMatchObject({ ok: true, data: { tag: 'a b&c', items: [{ name: 'bolt' }], trace: 't-1' } })
    expect(service.received.at(-1)!.url).toBe('/api/items?tag=a+b%26c&limit=1')
    const created = await plane.invoke('inv_create_item', { body: { name: 'nut/m6', quantity: 3 } }, { caller: admin })
    // Mutating: an admin calling directly runs it.
    expect(created).toMatchObject({ ok: true, data: { created: { name: 'nut/m6', quantity: 3 }, contentType: 'application/json' } })
    const item = await plane.invoke('inv_get_item', { itemId: 'nut/m6' }, { caller: admin })
    expect(item).toMatchObject({ ok: true, data: { name: 'nut/m6', quantity: 3 } })
    expect(service.received.at(-1)!.url).toBe('/api/items/nut%2Fm6')
    expect(await plane.invoke('inv_get_item', { itemId: 'missing' }, { caller: admin })).toMatchObject({
      ok: false,
      error: {
        code: 'executor_error',
        message: `skill "inv_get_item" failed: HTTP 404 Not Found from GET ${service.url}/api/items/missing: {"error":"no item missing"}`,
      },
    })
    expect(await plane.invoke('inv_create_item', { body: { name: 'x' } }, { caller: admin })).toMatchObject({
      ok: false,
      error: { code: 'invalid_input', message: expect.stringContaining('quantity') },
    })
    expect(await plane.invoke('inv_get_motd', {}, { caller: admin })).toMatchObject({ ok: true, data: 'hello from the depot' })
  })

  it('over HTTP: refuses a value no URL or header can carry (a lone surrogate, a line break) as 400 invalid_input, sending nothing', async () => {
    const plane = await ready({ openapi: [inventory()] })
    const server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    try {
      const key = (await plane.people.keys.create({ name: 'alice', role: 'admin' }, plane.now())).key
      // Raw JSON: "\ud800" parses to half of a UTF-16 pair, which JSON.stringify would never write.
      const invoke = async (skill: string, input: string) => {
        const response = await fetch(`${server.url}/api/skills/${skill}/invoke`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: `{"input":${input}}`,
        })
        return { status: response.status, body: (await response.json()) as Record<string, unknown> }
      }
      const sent = service.received.length
      const refused = (message: string) => ({ status: 400, body: { ok: false, error: { code: 'invalid_input', message } } })
      expect(await invoke('inv_get_item', '{"itemId":"bolt\\ud800"}')).toMatchObject(
        refused('path parameter "itemId" holds a lone surrogate (half of a UTF-16 pair), which a URL can\'t carry'),
      )
      expect(await invoke('inv_get_item', '{"itemId":"\\udc00x"}')).toMatchObject(
        refused(expect.stringContaining('path parameter "itemId" holds a lone surrogate')),
      )
      expect(await invoke('inv_list_items', '{"tag":"a\\ud83d"}')).toMatchObject(
        refused('query parameter "tag" holds a lone surrogate (half of a UTF-16 pair), which a URL can\'t carry'),
      )
      expect(await invoke('inv_list_items', '{"X-Trace":"t\\r\\nX-Injected: 1"}')).toMatchObject(
        refused('header parameter "X-Trace" can hold only Latin-1 characters without control characters (tab allowed)'),
      )
      expect(await invoke('inv_list_items', '{"X-Trace":"\\ud800"}')).toMatchObject(refused(expect.stringContaining('header parameter "X-Trace"')))
      expect(service.received.length).toBe(sent)
      // A whole pair (an emoji) is a character like any other, sent encoded.
      expect(await invoke('inv_get_item', '{"itemId":"\\ud83d\\ude00"}')).toMatchObject({
        status: 502,
        body: { error: { message: expect.stringContaining('HTTP 404') } },
      })
      expect(service.received.at(-1)!.url).toBe('/api/items/%F0%9F%98%80')
      expect(await invoke('inv_list_items', '{"tag":"\\ud83d\\ude00"}')).toMatchObject({ status: 200 })
      expect(service.received.at(-1)!.url).toBe('/api/items?tag=%F0%9F%98%80')
    } finally {
      await server.close()
    }
  })

  it('asks for approval before a DELETE (dangerous) an agent makes', async () => {
    const plane = await ready({ openapi: [inventory({ agents: ['Helper'] })] })
    const before = service.received.length
    const asked = await plane.invoke(
      'inv_delete_item',
      { itemId: 'bolt' },
      { caller: { kind: 'agent', id: 'k-helper', name: 'helper-key', agentId: 'helper' } },
    )
    expect(asked).toMatchObject({ ok: false, error: { code: 'approval_required' } })
    expect(approvalIdOf(asked)).toBeTruthy()
    expect(service.received.length).toBe(before)
  })

  it('follows a same-origin redirect and refuses one to another host', async () => {
    const plane = await ready({ openapi: [inventory()] })
    expect(await plane.invoke('inv_hop_home', {}, { caller: admin })).toMatchObject({ ok: true, data: { items: expect.any(Array) } })
    const refused = await plane.invoke('inv_go_elsewhere', {}, { caller: admin })
    const port = new URL(service.url).port
    expect(refused).toMatchObject({
      ok: false,
      error: {
        code: 'executor_error',
        message: `skill "inv_go_elsewhere" failed: refused a redirect from ${service.url} to another host (http://localhost:${port}): calls do not follow redirects off their origin`,
      },
    })
    expect(service.received.at(-1)!.url).toBe('/api/elsewhere')
  })

  it('aborts a response larger than maxResponseBytes, and one slower than the deadline', async () => {
    const plane = await ready({ openapi: [inventory({ maxResponseBytes: 10_000, timeoutMs: 300 })] })
    expect(await plane.invoke('inv_get_huge', {}, { caller: admin })).toMatchObject({
      ok: false,
      error: {
        code: 'executor_error',
        message: 'skill "inv_get_huge" failed: the response is larger than maxResponseBytes (10000 bytes); the call was aborted',
      },
    })
    expect(await plane.invoke('inv_get_slow', {}, { caller: admin })).toMatchObject({ ok: false, error: { code: 'timeout' } })
  })

  it('keeps to include and exclude by operationId or tag, and reports entries that match nothing', async () => {
    const plane = await open({ openapi: [inventory({ include: ['items', 'getHealth', 'nope'], exclude: ['admin', 'getHelth'], prefix: 'stock' })] })
    expect(
      plane.skills
        .list()
        .filter((s) => s.source === 'http')
        .map((s) => s.key)
        .sort(),
    ).toEqual(['stock_create_item', 'stock_get_health', 'stock_get_item', 'stock_list_items', 'stock_patch_items_item_id'])
    expect(openapi(plane.sources.report())[0]!.problems).toEqual([
      'config include: no operation has the operationId or tag "nope"',
      'config exclude: no operation has the operationId or tag "getHelth" (did you mean "getHealth"?)',
    ])
  })

  it('reads a spec from a URL, its relative server resolved against it, and calls only allowed hosts', async () => {
    const plane = await ready({
      openapi: [{ name: 'remote', spec: `${service.url}/api/openapi.json`, auth: { type: 'bearer', secret: 'INV_TOKEN' }, include: ['items'] }],
    })
    expect(openapi(plane.sources.report())[0]).toMatchObject({ state: 'loaded', baseUrl: `${service.url}/api`, problems: [] })
    expect(await plane.invoke('remote_list_items', {}, { caller: admin })).toMatchObject({ ok: true })
    // A token in the spec's query reaches the fetch, never the report.
    const tokened = await ready({ openapi: [{ name: 'tokened', spec: `${service.url}/api/openapi.json?token=s3cret-in-query`, include: ['items'] }] })
    expect(openapi(tokened.sources.report())[0]).toMatchObject({ state: 'loaded', spec: `${service.url}/api/openapi.json?…` })
    expect(JSON.stringify(tokened.sources.report())).not.toContain('s3cret-in-query')
    // A base URL outside the allowlist: every call is refused before it leaves.
    const fenced = await open({ openapi: [inventory({ name: 'fenced', allowHosts: ['api.example.com'] })] })
    expect(openapi(fenced.sources.report())[0]!.skills).toEqual([])
    expect(openapi(fenced.sources.report())[0]!.problems).toEqual([
      `the document's server 127.0.0.1:${new URL(service.url).port} is not in allowHosts (api.example.com)`,
    ])

    // A document fetched from a URL can't send the credential elsewhere by naming another server.
    const elsewhere = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({
          openapi: '3.1.0',
          info: { title: 't', version: '1' },
          servers: [{ url: 'http://169.254.169.254/' }],
          paths: { '/x': { get: { operationId: 'x' } } },
        }),
      )
    }).listen(0, '127.0.0.1')
    await once(elsewhere, 'listening')
    try {
      const specHost = `127.0.0.1:${(elsewhere.address() as AddressInfo).port}`
      const hijack = await open({ openapi: [{ name: 'hijack', spec: `http://${specHost}/openapi.json`, auth: { type: 'bearer', secret: 'INV_TOKEN' } }] })
      expect(openapi(hijack.sources.report())[0]).toMatchObject({
        skills: [],
        problems: [`the document's server 169.254.169.254 is not in the host the document came from (${specHost}); set baseUrl or allowHosts`],
      })
    } finally {
      elsewhere.close()
    }
  })

  it('skips an operation whose schema expands past the budget once references are resolved', async () => {
    const dir = tempDir()
    // Each level refers to the next twice: 16 levels are a 2 KB document and a 130,000-node schema.
    const schemas: Record<string, unknown> = { L16: { type: 'string' } }
    for (let i = 15; i >= 0; i--)
      schemas[`L${i}`] = { type: 'object', properties: { a: { $ref: `#/components/schemas/L${i + 1}` }, b: { $ref: `#/components/schemas/L${i + 1}` } } }
    writeFileSync(
      join(dir, 'fanout.json'),
      JSON.stringify({
        openapi: '3.1.0',
        info: { title: 'fan-out', version: '1' },
        servers: [{ url: service.url }],
        components: { schemas },
        paths: {
          '/bomb': { post: { operationId: 'bomb', requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/L0' } } } } } },
          '/fine': { get: { operationId: 'fine' } },
        },
      }),
    )
    const plane = await open({ openapi: [{ name: 'fan', spec: join(dir, 'fanout.json') }] })
    expect(openapi(plane.sources.report())[0]).toMatchObject({
      skills: ['fan_fine'],
      problems: ['operation "bomb": its schema expands to more than 20000 nodes (or 64 levels) once its references are resolved; skipped'],
    })
  })

  it('reports a spec that fails to load as a problem of its source, and starts anyway', async () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'broken.yaml'), 'openapi: 3.1.0\npaths: {\n  /x: [unclosed\n')
    writeFileSync(join(dir, 'swagger.json'), JSON.stringify({ swagger: '2.0', paths: {} }))
    writeFileSync(
      join(dir, 'dangling.json'),
      JSON.stringify({
        openapi: '3.0.3',
        servers: [{ url: 'http://127.0.0.1:9' }],
        paths: { '/a': { get: { operationId: 'a', parameters: [{ $ref: '#/components/parameters/Missing' }] } } },
      }),
    )
    const tree = { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/components/schemas/Tree' } } } }
    writeFileSync(
      join(dir, 'refs.json'),
      JSON.stringify({
        openapi: '3.1.0',
        servers: [{ url: service.url }],
        components: { schemas: { Tree: tree } },
        paths: {
          '/tree': { post: { operationId: 'plant', requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Tree' } } } } } },
          '/other': { post: { operationId: 'peek', requestBody: { content: { 'application/json': { schema: { $ref: '/etc/passwd' } } } } } },
          '/health': { get: { operationId: 'health' } },
        },
      }),
    )
    const plane = await open({
      openapi: [
        { name: 'refs', spec: join(dir, 'refs.json') },
        { name: 'broken', spec: join(dir, 'broken.yaml') },
        { name: 'old', spec: join(dir, 'swagger.json') },
        { name: 'dangling', spec: join(dir, 'dangling.json') },
        { name: 'gone', spec: join(dir, 'missing.json') },
        { name: 'offline', spec: 'http://127.0.0.1:9/openapi.json' },
        inventory({ include: ['getHealth'] }),
      ],
    })
    const report = Object.fromEntries(openapi(plane.sources.report()).map((s) => [s.name, s]))
    expect(report.broken).toMatchObject({
      state: 'failed',
      skills: [],
      problems: [expect.stringContaining('broken.yaml could not be read: it is neither JSON nor YAML')],
    })
    expect(report.old!.problems).toEqual([`the document ${join(dir, 'swagger.json')} could not be read: it is Swagger 2.0; only OpenAPI 3.0 and 3.1 are read`])
    expect(report.dangling!.problems).toEqual([expect.stringContaining('a reference could not be resolved')])
    expect(report.gone!.problems).toEqual([expect.stringContaining('no such file or directory')])
    expect(report.offline!.problems).toEqual([expect.stringContaining('GET http://127.0.0.1:9/openapi.json failed')])
    expect(report.inv).toMatchObject({ state: 'loaded', skills: ['inv_get_health'] })
    // A recursive schema and a reference to another file cost their operations only.
    expect(report.refs).toMatchObject({
      state: 'loaded',
      skills: ['refs_health'],
      problems: [
        `operation "plant": its schema refers to itself (#/components/schemas/Tree), which a skill's input schema can't hold; skipped`,
        `operation "peek": its schema refers to another document (/etc/passwd), which is not read; bundle the document first; skipped`,
      ],
    })
    expect(await plane.invoke('inv_get_health', {}, { caller: admin })).toMatchObject({ ok: true })
  })

  it('reads the documents again on reload: operations added and removed take effect', async () => {
    const dir = tempDir()
    const file = join(dir, 'spec.json')
    const spec = JSON.parse(SPEC) as { paths: Record<string, unknown> }
    writeFileSync(file, JSON.stringify({ ...spec, paths: { '/health': spec.paths['/health'] } }))
    const plane = await open({ openapi: [inventory({ spec: file })] })
    expect(openapi(plane.sources.report())[0]!.skills).toEqual(['inv_get_health'])
    writeFileSync(file, JSON.stringify({ ...spec, paths: { '/motd': spec.paths['/motd'] } }))
    const reloaded = await plane.sources.reload()
    expect(reloaded).toMatchObject({ added: ['inv_get_motd'], removed: ['inv_get_health'] })
    expect(openapi(reloaded.sources)).toMatchObject([{ name: 'inv', skills: ['inv_get_motd'] }])
    expect(plane.skills.get('inv_get_health')).toBeUndefined()
    expect(await plane.invoke('inv_get_motd', {}, { caller: admin })).toMatchObject({ ok: true, data: 'hello from the depot' })
    // A document broken since keeps nothing of its operations, and says why.
    writeFileSync(file, '{')
    expect(openapi((await plane.sources.reload()).sources)[0]).toMatchObject({ state: 'failed', skills: [] })
    expect(plane.skills.get('inv_get_motd')).toBeUndefined()
  })

  it('over HTTP: 424 until an admin sets the secret, then the value for each caller, never shown', async () => {
    const plane = await open({ openapi: [inventory({ include: ['whoAmI'] })] })
    const server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    try {
      const adminKey = (await plane.people.keys.create({ name: 'alice', role: 'admin' }, plane.now())).key
      const operatorKey = (await plane.people.keys.create({ name: 'oscar', role: 'operator' }, plane.now())).key
      const call = async (path: string, key: string, init: { method?: string; body?: unknown } = {}) => {
        const response = await fetch(server.url + path, {
          method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
        })
        return { status: response.status, body: (await response.json()) as Record<string, unknown> }
      }
      expect(openapi((await call('/api/sources', adminKey)).body as unknown as SourcesReport)).toMatchObject([
        { name: 'inv', state: 'loaded', skills: ['inv_who_am_i'] },
      ])
      expect(await call('/api/skills/inv_who_am_i/invoke', operatorKey, { body: { input: {} } })).toMatchObject({
        status: 424,
        body: { ok: false, error: { code: 'needs_auth', details: { missing: { secrets: ['INV_TOKEN'] } } } },
      })
      expect((await call('/api/secrets/INV_TOKEN', adminKey, { method: 'PUT', body: { value: TEST_TOKEN } })).status).toBe(200)
      expect(await call('/api/skills/inv_who_am_i/invoke', operatorKey, { body: { input: {} } })).toMatchObject({
        status: 200,
        body: { ok: true, data: { authorization: 'Bearer [REDACTED]' } },
      })
      // A user's own value wins for that user: the service sees it (and refuses it), the error never shows it.
      expect((await call('/api/secrets/INV_TOKEN', adminKey, { method: 'PUT', body: { value: 'oscars-own-token', user: 'oscar' } })).status).toBe(200)
      const asOscar = await call('/api/skills/inv_who_am_i/invoke', operatorKey, { body: { input: {} } })
      expect(asOscar).toMatchObject({ status: 502, body: { ok: false, error: { code: 'executor_error', message: expect.stringContaining('HTTP 401') } } })
      expect(service.received.at(-1)!.headers.authorization).toBe('Bearer oscars-own-token')
      expect(await call('/api/skills/inv_who_am_i/invoke', adminKey, { body: { input: {} } })).toMatchObject({ status: 200 })
      expect(JSON.stringify((await call('/api/audit?limit=50', adminKey)).body)).not.toMatch(/oscars-own-token|inv-secret-token/)
    } finally {
      await server.close()
    }
  })

  it('sends header, query and basic credentials, scrubbed in every form the service could echo', async () => {
    const dir = tempDir()
    const file = join(dir, 'echo.json')
    const operation = { operationId: 'echo', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }] }
    writeFileSync(file, JSON.stringify({ openapi: '3.0.3', servers: [{ url: service.url }], paths: { '/echo/{id}': { get: operation } } }))
    const secret = 'p@ss word/&=+?'
    const plane = await ready({
      openapi: [
        { name: 'by_header', spec: file, auth: { type: 'header', name: 'X-Api-Key', secret: 'ECHO_SECRET' } },
        { name: 'by_query', spec: file, auth: { type: 'query', name: 'api_key', secret: 'ECHO_SECRET' } },
        { name: 'by_basic', spec: file, auth: { type: 'basic', secret: 'ECHO_SECRET' } },
      ],
    })
    await plane.values.secrets.set('ECHO_SECRET', secret)
    expect(await plane.invoke('by_header_echo', { id: '1' }, { caller: admin })).toMatchObject({ ok: true, data: { key: '[REDACTED]', auth: null } })
    expect(service.received.at(-1)!.headers['x-api-key']).toBe(secret)
    const byQuery = await plane.invoke('by_query_echo', { id: '1' }, { caller: admin })
    expect(byQuery).toMatchObject({ ok: true, data: { query: [['api_key', '[REDACTED]']], raw: '/echo/1?api_key=[REDACTED]' } })
    expect(new URL(service.received.at(-1)!.url, 'http://x').searchParams.get('api_key')).toBe(secret)
    const basic = Buffer.from(secret).toString('base64')
    expect(await plane.invoke('by_basic_echo', { id: '1' }, { caller: admin })).toMatchObject({ ok: true, data: { auth: 'Basic [REDACTED]' } })
    expect(service.received.at(-1)!.headers.authorization).toBe(`Basic ${basic}`)
    const audit = JSON.stringify(await plane.audit.query({ limit: 20 }))
    for (const form of [secret, basic, encodeURIComponent(secret), new URLSearchParams({ k: secret }).toString().slice(2)]) expect(audit).not.toContain(form)
  })

  it('with oauth, asks per operation for the scopes its oauth2 or openIdConnect requirement lists, unless the config names them', async () => {
    const file = join(tempDir(), 'oauth.json')
    const get = (operationId: string, security?: unknown[]) => ({ get: { operationId, ...(security && { security }) } })
    writeFileSync(
      file,
      JSON.stringify({
        openapi: '3.1.0',
        servers: [{ url: service.url }],
        security: [{ oauth: ['items:read'] }],
        components: {
          securitySchemes: {
            oauth: {
              type: 'oauth2',
              flows: { authorizationCode: { authorizationUrl: 'https://idp.example.com/auth', tokenUrl: 'https://idp.example.com/token', scopes: {} } },
            },
            oidc: { type: 'openIdConnect', openIdConnectUrl: 'https://idp.example.com/.well-known/openid-configuration' },
            headerKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
          },
        },
        paths: {
          '/echo/default': get('byDefault'),
          '/echo/write': get('write', [{ headerKey: [] }, { oauth: ['items:read', 'items:write'] }]),
          '/echo/oidc': get('signedIn', [{ oidc: ['openid', 'profile'] }]),
          '/echo/key': get('key', [{ headerKey: [] }]),
          '/echo/public': get('public', []),
          '/echo/bad': get('bad', [{ oauth: ['two words'] }]),
        },
      }),
    )
    const plane = await open({
      oauth: { providers: { idp: { issuer: 'https://idp.example.com', clientId: 'skillplane', scopes: ['items:read'] } } },
      openapi: [
        { name: 'doc', spec: file, oauth: { provider: 'idp' } },
        { name: 'fixed', spec: file, include: ['write', 'signedIn'], oauth: { provider: 'idp', scopes: ['items:all'], account: 'service' } },
      ],
    })
    const oauth = (key: string) => plane.skills.get(key)?.oauth
    expect(oauth('doc_by_default')).toEqual({ provider: 'idp', scopes: ['items:read'], account: 'person' })
    expect(oauth('doc_write')).toEqual({ provider: 'idp', scopes: ['items:read', 'items:write'], account: 'person' })
    expect(oauth('doc_signed_in')).toEqual({ provider: 'idp', scopes: ['openid', 'profile'], account: 'person' })
    // No OAuth scheme among its requirements: the provider's default scopes.
    expect(oauth('doc_key')).toEqual({ provider: 'idp', scopes: [], account: 'person' })
    expect(oauth('doc_public')).toBeNull()
    expect(oauth('fixed_write')).toEqual({ provider: 'idp', scopes: ['items:all'], account: 'service' })
    expect(oauth('fixed_signed_in')).toEqual({ provider: 'idp', scopes: ['items:all'], account: 'service' })
    expect(oauth('doc_bad')).toBeUndefined()
    expect(openapi(plane.sources.report())[0]!.problems).toEqual([
      'OpenAPI source "doc", GET /echo/bad: skill "doc_bad" (OpenAPI source "doc", GET /echo/bad): oauth.scopes must be a list of scope tokens (no spaces or quotes); skipped',
    ])
    // Until the caller connects, nothing is sent.
    const sent = service.received.length
    expect(await plane.invoke('doc_by_default', {}, { caller: admin })).toMatchObject({
      ok: false,
      error: { code: 'needs_auth', details: { oauth: { provider: 'idp', missingScopes: ['items:read'] } } },
    })
    expect(service.received.length).toBe(sent)
  })

  it("sends a secret as the document's own security schemes say, naming the schemes it can't send; a typed auth wins", async () => {
    const dir = tempDir()
    const file = join(dir, 'secured.json')
    const get = (operationId: string, security?: unknown[]) => ({ get: { operationId, ...(security && { security }) } })
    writeFileSync(
      file,
      JSON.stringify({
        openapi: '3.1.0',
        servers: [{ url: service.url }],
        security: [{ bearerAuth: [] }],
        components: {
          securitySchemes: {
            bearerAuth: { type: 'http', scheme: 'bearer' },
            basicAuth: { type: 'http', scheme: 'Basic' },
            digestAuth: { type: 'http', scheme: 'digest' },
            headerKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
            queryKey: { type: 'apiKey', in: 'query', name: 'api_key' },
            cookieKey: { type: 'apiKey', in: 'cookie', name: 'session' },
            oauth: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: 'https://idp.example.com/token', scopes: { read: 'read' } } } },
            oidc: { type: 'openIdConnect', openIdConnectUrl: 'https://idp.example.com/.well-known/openid-configuration' },
          },
        },
        paths: {
          '/echo/default': get('byDefault'),
          '/echo/bearer': get('bearer', [{ bearerAuth: [] }]),
          '/echo/basic': get('basic', [{ basicAuth: [] }]),
          '/echo/header': get('header', [{ headerKey: [] }]),
          '/echo/query': get('query', [{ queryKey: [] }]),
          '/echo/fallback': get('fallback', [{ oauth: ['read'] }, { headerKey: [] }]),
          '/echo/optional': get('optional', [{ oidc: [] }, {}]),
          '/echo/public': get('public', []),
          '/echo/cookie': get('cookie', [{ cookieKey: [] }]),
          '/echo/oauth': get('oauth', [{ oauth: ['read'] }, { oidc: [] }]),
          '/echo/digest': get('digest', [{ digestAuth: [] }]),
          '/echo/both': get('both', [{ bearerAuth: [], headerKey: [] }]),
          '/echo/undeclared': get('undeclared', [{ missing: [] }]),
        },
      }),
    )
    const secret = 'scheme-secret-41c9'
    const plane = await ready({
      openapi: [
        { name: 'sec', spec: file, auth: { secret: 'ECHO_SECRET' } },
        { name: 'typed', spec: file, include: ['bearer', 'cookie'], auth: { type: 'query', name: 'k', secret: 'ECHO_SECRET' } },
      ],
    })
    const [sec, typed] = openapi(plane.sources.report())
    expect(sec!.skills).toEqual(['sec_basic', 'sec_bearer', 'sec_by_default', 'sec_fallback', 'sec_header', 'sec_optional', 'sec_public', 'sec_query'])
    const fix = 'give auth a type (bearer, header, query or basic) to send the secret another way; skipped'
    expect(sec!.problems).toEqual([
      `operation "cookie": its security scheme "cookieKey" (apiKey in a cookie: only header and query are sent) can't be sent from a secret; ${fix}`,
      `operation "oauth": its security scheme "oauth" (oauth2: not sent from a secret), or "oidc" (openIdConnect: not sent from a secret) can't be sent from a secret; ${fix}`,
      `operation "digest": its security scheme "digestAuth" (http "digest": only bearer and basic are sent) can't be sent from a secret; ${fix}`,
      `operation "both": its security scheme "bearerAuth" and "headerKey" together (one secret can't meet two schemes) can't be sent from a secret; ${fix}`,
      `operation "undeclared": its security scheme "missing" (not in components.securitySchemes) can't be sent from a secret; ${fix}`,
    ])
    // Only the secret's name was configured: until it is set, each operation that sends it waits for it.
    expect(plane.skills.get('sec_header')!.secrets).toEqual(['ECHO_SECRET'])
    expect(plane.skills.get('sec_public')!.secrets).toEqual([])
    expect(plane.skills.get('sec_optional')!.secrets).toEqual([])
    expect(await plane.invoke('sec_bearer', {}, { caller: admin })).toMatchObject({ ok: false, error: { code: 'needs_auth' } })
    await plane.values.secrets.set('ECHO_SECRET', secret)

    const sent = async (key: string) => {
      expect(await plane.invoke(key, {}, { caller: admin })).toMatchObject({ ok: true })
      const { url, headers } = service.received.at(-1)!
      return { authorization: headers.authorization ?? null, apiKey: headers['x-api-key'] ?? null, query: new URL(url, 'http://x').search }
    }
    const none = { authorization: null, apiKey: null, query: '' }
    expect(await sent('sec_by_default')).toEqual({ ...none, authorization: `Bearer ${secret}` })
    expect(await sent('sec_bearer')).toEqual({ ...none, authorization: `Bearer ${secret}` })
    expect(await sent('sec_basic')).toEqual({ ...none, authorization: `Basic ${Buffer.from(secret).toString('base64')}` })
    expect(await sent('sec_header')).toEqual({ ...none, apiKey: secret })
    expect(await sent('sec_query')).toEqual({ ...none, query: `?api_key=${secret}` })
    expect(await sent('sec_fallback')).toEqual({ ...none, apiKey: secret })
    expect(await sent('sec_optional')).toEqual(none)
    expect(await sent('sec_public')).toEqual(none)
    // A typed auth is sent as it says, whatever the document declares; none of its operations is skipped.
    expect(typed!.skills).toEqual(['typed_bearer', 'typed_cookie'])
    expect(typed!.problems).toEqual([])
    expect(await sent('typed_bearer')).toEqual({ ...none, query: `?k=${secret}` })
    expect(await sent('typed_cookie')).toEqual({ ...none, query: `?k=${secret}` })
    expect(JSON.stringify(await plane.audit.query({ limit: 50 }))).not.toContain(secret)
  })

  it('rejects a bad openapi config naming the field', async () => {
    await expect(open({ openapi: [{ name: 'Bad-Name', spec: 'x.json' }] })).rejects.toThrow('openapi[0].name: must be lower_snake')
    await expect(open({ openapi: [inventory({ auth: { type: 'header', secret: 'INV_TOKEN' } })] })).rejects.toThrow(
      'openapi[0].auth.name: name (the header or query parameter) is required for header and query auth, and only for them',
    )
    // A name belongs to a typed header or query auth; a secret alone takes the document's scheme.
    await expect(open({ openapi: [inventory({ auth: { name: 'X-Key', secret: 'INV_TOKEN' } })] })).rejects.toThrow(
      'openapi[0].auth.name: name (the header or query parameter) is required for header and query auth, and only for them',
    )
    await expect(open({ openapi: [inventory({ auth: { type: 'cookie', secret: 'INV_TOKEN' } })] })).rejects.toThrow(
      'openapi[0].auth.type: an auth type: bearer, header, query or basic',
    )
    await expect(open({ openapi: [inventory({ auth: {} })] })).rejects.toThrow('openapi[0].auth.secret')
    await expect(open({ openapi: [inventory({ allowHosts: ['https://x.example.com'] })] })).rejects.toThrow('openapi[0].allowHosts[0]: a host name')
    await expect(open({ openapi: [inventory(), inventory()] })).rejects.toThrow('openapi: OpenAPI source names must be unique')
  })
})

/** The OpenAPI documents among the HTTP source's entries, their details spread as the entries' own fields. */
function openapi(report: SourcesReport) {
  return report.http.entries.filter((e) => e.name !== 'httpSkills').map(({ details, reason: _reason, ...entry }) => ({ ...entry, ...details }))
}
