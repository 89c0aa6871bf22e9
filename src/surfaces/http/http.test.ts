import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { Validator } from '@seriousme/openapi-schema-validator'
import $RefParser from '@apidevtools/json-schema-ref-parser'
import { databases, tree, waitFor, type TestDatabase } from '../../test-support/databases.js'
import { sopSigner } from '../../test-support/sop.js'
import { openTestPlane, testSkills } from '../../test-support/fixtures.js'
import { defineSkill } from '../../skill/define-skill.js'
import type { Skillplane } from '../../agents/index.js'
import type { SkillplaneConfig } from '../../config/define-config.js'
import { startHttpServer, type HttpServer } from './start-http-server.js'

interface Harness {
  plane: Skillplane
  server: HttpServer
  keys: Record<'admin' | 'admin2' | 'operator' | 'viewer' | 'helper', string>
  call(path: string, init?: { key?: string | null; method?: string; body?: unknown; raw?: string }): Promise<{ status: number; body: any; type: string }>
}

async function start(
  database: TestDatabase,
  config?: SkillplaneConfig,
  location?: { dataDir: string; databaseUrl?: string },
  existingKeys?: Harness['keys'],
): Promise<Harness> {
  const plane = await openTestPlane(database, config, location)
  const server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
  const make = async (name: string, role: 'admin' | 'operator' | 'viewer' | 'agent', agentId?: string) =>
    (await plane.people.keys.create({ name, role, agentId }, plane.now())).key
  const keys = existingKeys ?? {
    admin: await make('alice', 'admin'),
    admin2: await make('bob', 'admin'),
    operator: await make('oscar', 'operator'),
    viewer: await make('vera', 'viewer'),
    helper: await make('helper-bot', 'agent', 'helper'),
  }
  return {
    plane,
    server,
    keys,
    async call(path, init = {}) {
      const key = init.key === undefined ? keys.admin : init.key
      const response = await fetch(server.url + path, {
        method: init.method ?? (init.body !== undefined || init.raw !== undefined ? 'POST' : 'GET'),
        headers: { ...(key && { authorization: `Bearer ${key}` }), 'content-type': 'application/json' },
        body: init.raw ?? (init.body === undefined ? undefined : JSON.stringify(init.body)),
      })
      const type = response.headers.get('content-type') ?? ''
      const text = await response.text()
      return { status: response.status, type, body: type.includes('json') ? JSON.parse(text) : text }
    },
  }
}

describe.each(databases)('HTTP API on $name', (database) => {
  let h: Harness
  afterEach(async () => {
    await h?.server.close()
    await h?.plane.close()
  })

  it('answers health without a key and 401 with a JSON body for missing, unknown or revoked keys', async () => {
    h = await start(database)
    expect(await h.call('/api/health', { key: null })).toMatchObject({ status: 200, body: { ok: true, database: database.name } })
    expect(await h.call('/api/health/ready', { key: null })).toMatchObject({ status: 200, body: { ok: true, database: database.name } })
    expect(await h.call('/api/health/live', { key: null })).toMatchObject({ status: 200, body: { ok: true, manager: h.plane.status.managerId } })
    expect(await h.call('/api/skills', { key: null })).toMatchObject({
      status: 401,
      body: { ok: false, error: { code: 'unauthorized', message: expect.stringContaining('missing API key') } },
    })
    expect(await h.call('/api/skills', { key: 'sp_not-a-real-key' })).toMatchObject({ status: 401, body: { error: { code: 'unauthorized' } } })
    const basic = await fetch(`${h.server.url}/api/skills`, { headers: { authorization: 'Basic YWxpY2U6cHc=' } })
    expect(basic.status).toBe(401)
    expect(await basic.json()).toMatchObject({ error: { code: 'unauthorized', message: expect.stringContaining('malformed Authorization header') } })
    // A token no key could be (a quote, a comma) is a bad credential too: 401, not hono's 400.
    for (const path of ['/api/skills', '/mcp']) {
      for (const token of ['sp_"quoted', 'a,b', 'sp_ok\\']) {
        const odd = await fetch(`${h.server.url}${path}`, { method: path === '/mcp' ? 'POST' : 'GET', headers: { authorization: `Bearer ${token}` } })
        expect({ path, token, status: odd.status, authenticate: odd.headers.get('www-authenticate') }).toEqual({
          path,
          token,
          status: 401,
          authenticate: 'Bearer error="invalid_request"',
        })
        expect(await odd.json()).toMatchObject({ error: { code: 'unauthorized', message: 'malformed Authorization header: expected Bearer <key>' } })
      }
    }
    await h.plane.people.keys.revoke('vera', h.plane.now())
    expect(await h.call('/api/skills', { key: h.keys.viewer })).toMatchObject({
      status: 401,
      body: { error: { message: 'unknown or revoked API key, or its user is disabled' } },
    })
  })

  it('lists skills with filters; an agent key sees only its bound skills', async () => {
    h = await start(database)
    const all = await h.call('/api/skills')
    expect(all.body.skills.map((s: { key: string }) => s.key)).toContain('wipe_things')
    expect(all.body.skills.find((s: { key: string }) => s.key === 'echo')).toMatchObject({
      class: 'safe',
      scope: 'manager',
      source: 'code',
      enabled: true,
      agents: ['helper'],
    })
    const mutating = await h.call('/api/skills?class=mutating')
    expect(mutating.body.skills.map((s: { key: string }) => s.key)).toEqual(['bulk_delete', 'memory_delete', 'memory_set', 'write_thing'])
    const unavailable = await h.call('/api/skills?available=false')
    expect(unavailable.body.skills).toEqual([
      expect.objectContaining({ key: 'remote_thing', scope: 'host', available: false, unavailableReason: 'no enrolled edge offers it' }),
    ])
    expect((await h.call('/api/skills?scope=host')).body.skills.map((s: { key: string }) => s.key)).toEqual(['remote_thing'])
    expect(await h.call('/api/skills?available=maybe')).toMatchObject({ status: 400 })
    const byAgent = await h.call('/api/skills?agent=Helper')
    // discover_skills is bound to every agent: what it finds is what the agent may call anyway.
    expect(byAgent.body.skills.map((s: { key: string }) => s.key)).toEqual(['discover_skills', 'echo', 'parent_call', 'wipe_things', 'write_thing'])
    const asAgent = await h.call('/api/skills', { key: h.keys.helper })
    expect(asAgent.body.skills.map((s: { key: string }) => s.key)).toEqual(['discover_skills', 'echo', 'parent_call', 'wipe_things', 'write_thing'])
    expect(await h.call('/api/skills/explode', { key: h.keys.helper })).toMatchObject({ status: 404 })
    expect(await h.call('/api/skills?agent=ghost')).toMatchObject({ status: 400, body: { error: { message: 'unknown agent "ghost"' } } })
    const detail = await h.call('/api/skills/echo')
    expect(detail.body).toMatchObject({ key: 'echo', inputSchema: { type: 'object' }, outputSchema: { type: 'object' }, toolName: 'echo' })
    expect(await h.call('/api/skills/nope')).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } })
  })

  it('answers a repeated listing with every change since: a catalog edit, a secret, a skill that went down on its own', async () => {
    let down: string | null = null
    const extra = [
      defineSkill({ key: 'flaky', description: 'Down when its backend is', class: 'safe', unavailable: () => down, run: () => ({}) }),
      defineSkill({ key: 'needs_token', description: 'Needs a token', class: 'safe', secrets: ['SOME_TOKEN'], run: () => ({}) }),
    ]
    h = await start(database, { skills: [...testSkills(), ...extra] })
    const skill = async (key: string) => (await h.call('/api/skills')).body.skills.find((s: { key: string }) => s.key === key)
    const first = await fetch(`${h.server.url}/api/skills`, { headers: { authorization: `Bearer ${h.keys.admin}` } })
    const again = await fetch(`${h.server.url}/api/skills`, { headers: { authorization: `Bearer ${h.keys.admin}` } })
    expect(again.headers.get('content-type')).toBe('application/json')
    expect(await again.text()).toBe(await first.text())

    expect(await skill('flaky')).toMatchObject({ available: true, unavailableReason: null })
    down = 'its backend is in maintenance'
    expect(await skill('flaky')).toMatchObject({ available: false, unavailableReason: 'its backend is in maintenance' })
    down = null
    expect(await skill('flaky')).toMatchObject({ available: true, unavailableReason: null })

    await h.plane.skills.edit('echo', { title: 'Echo, renamed' }, h.plane.now())
    expect(await skill('echo')).toMatchObject({ title: 'Echo, renamed' })
    expect((await h.call('/api/skills', { key: h.keys.helper })).body.skills.map((s: { key: string }) => s.key)).not.toContain('flaky')

    expect(await skill('needs_token')).toMatchObject({ connection: { state: 'needs_auth', missing: { secrets: ['SOME_TOKEN'] } } })
    await h.plane.values.secrets.set('SOME_TOKEN', 'not-a-real-token')
    expect(await skill('needs_token')).toMatchObject({ connection: { state: 'ready' } })
  })

  it('maps every pipeline outcome to its HTTP status with the envelope', async () => {
    h = await start(database)
    const invoke = (key: string, body: unknown, who: keyof Harness['keys'] = 'admin') => h.call(`/api/skills/${key}/invoke`, { body, key: h.keys[who] })
    expect(await invoke('echo', { input: { message: 'hi' } })).toMatchObject({
      status: 200,
      body: { ok: true, data: { message: 'hi', count: 1 }, callId: expect.any(String) },
    })
    expect(await invoke('echo', { input: { message: 5 } })).toMatchObject({
      status: 400,
      body: { ok: false, error: { code: 'invalid_input', message: expect.stringContaining('/message') } },
    })
    expect(await invoke('write_thing', { input: { value: 'x' } }, 'viewer')).toMatchObject({ status: 403, body: { error: { code: 'denied' } } })
    expect(await invoke('write_thing', { input: { value: 'x' } }, 'operator')).toMatchObject({ status: 200 })
    expect(await invoke('write_thing', { input: { value: 'x' } }, 'helper')).toMatchObject({
      status: 202,
      body: { ok: false, error: { code: 'approval_required', details: { approvalId: expect.any(String) } } },
    })
    expect(await invoke('wipe_things', {}, 'operator')).toMatchObject({ status: 403, body: { error: { code: 'denied' } } })
    expect(await invoke('missing', {})).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } })
    expect(await invoke('explode', {})).toMatchObject({ status: 502, body: { error: { code: 'executor_error' } } })
    expect(await invoke('bad_output', {})).toMatchObject({ status: 502, body: { error: { code: 'invalid_output' } } })
    expect(await invoke('hang', {})).toMatchObject({ status: 504, body: { error: { code: 'timeout' } } })
    expect(await invoke('remote_thing', { edgeId: 'e1' })).toMatchObject({
      status: 404,
      body: { error: { code: 'not_found', message: 'no enrolled edge "e1"' } },
    })
    expect(await invoke('echo', { input: { message: 'x' }, agent: 'helper', conversationId: 'c-9' })).toMatchObject({ status: 200 })
    const row = (await h.plane.audit.query({ skill: 'echo', status: 'ok', limit: 1 })).items[0]
    expect(row).toMatchObject({ agent: 'helper', conversationId: 'c-9', caller: { name: 'alice' } })
  })

  it('refuses malformed, non-JSON and oversized bodies with JSON errors', async () => {
    h = await start(database, { http: { maxBodyBytes: 2048 } })
    expect(await h.call('/api/skills/echo/invoke', { raw: '{"input": {' })).toMatchObject({
      status: 400,
      body: { ok: false, error: { code: 'invalid_input', message: expect.stringContaining('request body is not valid JSON') } },
    })
    expect(await h.call('/api/skills/echo/invoke', { body: { input: { message: 'x' }, inptu: {} } })).toMatchObject({
      status: 400,
      body: {
        error: {
          message:
            'invalid request body: unknown field "inptu" (did you mean "input"?) (the body is { "input": { …the skill\'s arguments… } }, with agent, conversationId, edgeId, approvalId and wait beside it)',
        },
      },
    })
    // The skill's arguments posted bare: the answer says where they go.
    expect(await h.call('/api/skills/echo/invoke', { body: { message: 'x' } })).toMatchObject({
      status: 400,
      body: { error: { message: expect.stringMatching(/^invalid request body: unknown field "message" \(the body is \{ "input": /) } },
    })
    expect(await h.call('/api/skills/echo/invoke', { body: [1, 2] })).toMatchObject({ status: 400 })
    // A query's unknown parameter is named with the one meant too.
    expect(await h.call('/api/skills/search?q=echo&limt=3')).toMatchObject({
      status: 400,
      body: { error: { message: 'invalid search: unknown field "limt" (did you mean "limit"?)' } },
    })
    const big = await h.call('/api/skills/echo/invoke', { body: { input: { message: 'x'.repeat(5000) } } })
    expect(big).toMatchObject({ status: 413, body: { ok: false, error: { code: 'payload_too_large' } } })
    // A chunked body has no Content-Length: its size is counted while it is read.
    const chunks = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 10; i++) controller.enqueue(new TextEncoder().encode('x'.repeat(500)))
        controller.close()
      },
    })
    const chunked = await fetch(`${h.server.url}/api/skills/echo/invoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.keys.admin}`, 'content-type': 'application/json' },
      body: chunks,
      duplex: 'half',
    } as RequestInit)
    expect(chunked.status).toBe(413)
    expect(await chunked.json()).toMatchObject({ error: { code: 'payload_too_large' } })
    expect(await h.call('/api/nothing-here')).toMatchObject({ status: 404, body: { error: { code: 'not_found', message: 'no route GET /api/nothing-here' } } })
    // An empty body means "no arguments".
    expect(await h.call('/api/skills/explode/invoke', { raw: '' })).toMatchObject({ status: 502 })
  })

  it('serves the audit log to operators with filters and cursor paging, never to viewers or agents', async () => {
    h = await start(database)
    for (let i = 0; i < 5; i++) await h.call('/api/skills/echo/invoke', { body: { input: { message: `m${i}` } } })
    await h.call('/api/skills/explode/invoke', { body: {}, key: h.keys.operator })
    const page1 = await h.call('/api/audit?skill=echo&limit=3', { key: h.keys.operator })
    expect(page1.status).toBe(200)
    expect(page1.body.items.map((e: { input: { message: string } }) => e.input.message)).toEqual(['m4', 'm3', 'm2'])
    const page2 = await h.call(`/api/audit?skill=echo&limit=3&cursor=${page1.body.nextCursor}`, { key: h.keys.operator })
    expect(page2.body.items.map((e: { input: { message: string } }) => e.input.message)).toEqual(['m1', 'm0'])
    expect(page2.body.nextCursor).toBeNull()
    const errors = await h.call('/api/audit?status=error&caller=oscar')
    expect(errors.body.items).toEqual([
      expect.objectContaining({ skill: 'explode', status: 'error', error: { code: 'executor_error', message: 'skill "explode" failed: the disk is on fire' } }),
    ])
    const future = await h.call(`/api/audit?from=${encodeURIComponent('2999-01-01T00:00:00Z')}`)
    expect(future.body.items).toEqual([])
    const one = await h.call(`/api/audit/${page1.body.items[0].callId}`)
    expect(one.body).toMatchObject({ skill: 'echo', status: 'ok', result: { message: 'm4', count: 1 } })
    // Pairs of filters, meeting or not: a pair whose rows never meet is an empty page, not an error.
    const pairs: Array<[string, string[]]> = [
      ['skill=echo&status=ok', ['m4', 'm3', 'm2', 'm1', 'm0']],
      ['skill=echo&status=error', []],
      ['skill=explode&status=ok', []],
      ['caller=oscar&skill=echo', []],
      ['caller=oscar&skill=explode&status=error', ['explode']],
      [`skill=echo&from=${encodeURIComponent('2999-01-01T00:00:00Z')}`, []],
      ['skill=echo&agent=nobody', []],
      ['skill=echo&edge=nowhere', []],
      ['status=running&skill=echo', []],
    ]
    for (const [filters, expected] of pairs) {
      const page = await h.call(`/api/audit?${filters}`)
      expect(page.status, filters).toBe(200)
      expect(
        page.body.items.map((e: { skill: string; input: { message?: string } }) => e.input.message ?? e.skill),
        filters,
      ).toEqual(expected)
    }
    // A pair pages by cursor like a single filter, newest first, each row once.
    const first = await h.call('/api/audit?skill=echo&status=ok&limit=2')
    const second = await h.call(`/api/audit?skill=echo&status=ok&limit=2&cursor=${first.body.nextCursor}`)
    const third = await h.call(`/api/audit?skill=echo&status=ok&limit=2&cursor=${second.body.nextCursor}`)
    expect([first, second, third].flatMap((p) => p.body.items.map((e: { input: { message: string } }) => e.input.message))).toEqual([
      'm4',
      'm3',
      'm2',
      'm1',
      'm0',
    ])
    expect(third.body.nextCursor).toBeNull()
    expect(await h.call('/api/audit?status=weird')).toMatchObject({ status: 400, body: { error: { message: expect.stringContaining('status') } } })
    expect(await h.call('/api/audit?from=yesterday')).toMatchObject({ status: 400, body: { error: { message: expect.stringContaining('from') } } })
    expect(await h.call('/api/audit?limit=0')).toMatchObject({ status: 400 })
    expect(await h.call('/api/audit', { key: h.keys.viewer })).toMatchObject({ status: 403, body: { error: { code: 'denied' } } })
    expect(await h.call('/api/audit', { key: h.keys.helper })).toMatchObject({ status: 403 })
    expect(await h.call('/api/audit/nope')).toMatchObject({ status: 404 })
  })

  it('lets admins edit the catalog side of a skill, which then shows in listings', async () => {
    h = await start(database)
    const edited = await h.call('/api/skills/echo', { method: 'PATCH', body: { description: 'Says it back', tags: ['demo'], systemPrompt: 'Be brief' } })
    expect(edited).toMatchObject({
      status: 200,
      body: { description: 'Says it back', tags: ['demo'], systemPrompt: 'Be brief', overrides: { description: true, tags: true, title: false } },
    })
    expect((await h.call('/api/skills?tag=demo')).body.skills.map((s: { key: string }) => s.key)).toEqual(['echo'])
    await h.call('/api/skills/echo', { method: 'PATCH', body: { enabled: false } })
    expect(await h.call('/api/skills/echo/invoke', { body: { input: { message: 'x' } } })).toMatchObject({
      status: 503,
      body: { error: { code: 'unavailable' } },
    })
    const reset = await h.call('/api/skills/echo', { method: 'PATCH', body: { description: null, enabled: true } })
    expect(reset.body).toMatchObject({ description: 'Return the message', enabled: true })
    expect(await h.call('/api/skills/echo', { method: 'PATCH', body: { enabled: 'yes' } })).toMatchObject({ status: 400 })
    expect(await h.call('/api/skills/echo', { method: 'PATCH', body: {} })).toMatchObject({
      status: 400,
      body: { error: { message: expect.stringContaining('nothing to change') } },
    })
    expect(await h.call('/api/skills/echo', { method: 'PATCH', body: { enabled: false }, key: h.keys.operator })).toMatchObject({ status: 403 })
  })

  it('lists agents with their bindings; an agent key sees itself only', async () => {
    h = await start(database)
    const all = await h.call('/api/agents')
    expect(all.body.agents).toEqual([
      {
        id: 'helper',
        name: 'Helper',
        aliases: ['helper', 'h'],
        description: 'The test agent',
        declared: true,
        model: null,
        available: false,
        unavailableReason: 'agent "Helper" has no model: set agents[].model in the config ({ provider, model })',
        skills: ['discover_skills', 'echo', 'parent_call', 'wipe_things', 'write_thing'],
      },
      {
        id: 'other',
        name: 'Other',
        aliases: [],
        description: 'Bound to nothing',
        declared: true,
        model: null,
        available: false,
        unavailableReason: 'agent "Other" has no model: set agents[].model in the config ({ provider, model })',
        skills: ['discover_skills'],
      },
    ])
    expect((await h.call('/api/agents', { key: h.keys.helper })).body.agents.map((a: { id: string }) => a.id)).toEqual(['helper'])
  })

  it('publishes a valid OpenAPI 3.1 document documenting each visible skill with its own schema', async () => {
    h = await start(database)
    const anonymous = await h.call('/openapi.json', { key: null })
    expect(anonymous.status).toBe(200)
    expect(Object.keys(anonymous.body.paths)).not.toContain('/api/skills/echo/invoke')
    const full = (await h.call('/openapi.json')).body
    const validator = new Validator()
    const result = await validator.validate(full)
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
    expect(full.openapi).toBe('3.1.0')
    expect(full.paths['/api/skills/echo/invoke'].post.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/InvokeOptions',
      properties: { input: { $ref: '#/components/schemas/echo_input' } },
      unevaluatedProperties: false,
    })
    expect(full.components.schemas.echo_input).toMatchObject({ required: ['message'], properties: { message: { type: 'string', minLength: 1 } } })
    const agentView = (await h.call('/openapi.json', { key: h.keys.helper })).body
    expect(Object.keys(agentView.paths).filter((p) => p.endsWith('/invoke') && !p.includes('{'))).toEqual([
      '/api/skills/discover_skills/invoke',
      '/api/skills/echo/invoke',
      '/api/skills/parent_call/invoke',
      '/api/skills/wipe_things/invoke',
      '/api/skills/write_thing/invoke',
    ])
    expect(await h.call('/openapi.json', { key: 'sp_bogus' })).toMatchObject({ status: 401 })
  })

  it('keeps each caller’s /openapi.json until skills, the catalog or policies change; invokes refer to shared parts; pages and tags', async () => {
    let builds = 0
    const counted = defineSkill({
      key: 'schema_counted',
      description: 'Counts how often its schema is built',
      class: 'safe',
      category: 'tally',
      inputSchemaFor: () => {
        builds++
        return { type: 'object', properties: { n: { type: 'number' } } }
      },
      run: () => ({}),
    })
    const packs = tree({ 'later/skill.json': JSON.stringify({ name: 'later', description: 'Added later', entry: 'run.sh', class: 'safe' }) })
    h = await start(database, { skills: [...testSkills(), counted], packDirs: [packs] })
    const first = await h.call('/openapi.json')
    const built = builds
    expect(built).toBeGreaterThan(0)
    expect(await h.call('/openapi.json')).toEqual(first)
    expect(builds).toBe(built)

    // Every $ref resolves, and each invoke's failures are one shared response, its body's other fields one shared schema.
    const result = await new Validator().validate(structuredClone(first.body))
    expect(result.errors ?? []).toEqual([])
    const resolved = (await $RefParser.dereference(structuredClone(first.body))) as any
    expect(resolved.paths['/api/skills/schema_counted/invoke'].post.responses.default).toMatchObject({
      description: expect.stringContaining('413 request body too large'),
      content: { 'application/json': { schema: { required: ['ok', 'error'] } } },
    })
    expect(first.body.paths['/api/skills/echo/invoke'].post.responses.default).toEqual({ $ref: '#/components/responses/InvokeFailure' })
    expect(first.body.paths['/api/skills/echo/invoke'].post.responses['202']).toEqual({ $ref: '#/components/responses/Invoke202' })
    expect(resolved.paths['/api/skills/echo/invoke'].post.requestBody.content['application/json'].schema.properties.agent).toMatchObject({
      type: 'string',
      minLength: 1,
    })

    // A catalog edit and a reloaded source each make the next request build afresh.
    expect(await h.call('/api/skills/echo', { method: 'PATCH', body: { title: 'Echo anew' } })).toMatchObject({ status: 200 })
    await h.call('/openapi.json')
    expect(builds).toBe(built + 1)
    await h.call('/openapi.json')
    expect(builds).toBe(built + 1)
    writeFileSync(join(packs, 'later/run.sh'), '#!/bin/sh\necho {}\n', { mode: 0o755 })
    expect(await h.call('/api/sources/reload', { method: 'POST' })).toMatchObject({ status: 200, body: { added: ['later'] } })
    expect(Object.keys((await h.call('/openapi.json')).body.paths)).toContain('/api/skills/later/invoke')
    expect(builds).toBe(built + 2)
    // Another caller has a document of its own.
    await h.call('/openapi.json', { key: h.keys.operator })
    expect(builds).toBe(built + 3)

    const tally = (await h.call('/openapi.json?tag=tally')).body
    expect(Object.keys(tally.paths).filter((p) => p.startsWith('/api/skills/') && p.endsWith('/invoke') && !p.includes('{'))).toEqual([
      '/api/skills/schema_counted/invoke',
    ])
    expect(tally.paths['/api/health']).toBeDefined()
    const page = await h.call('/openapi.json?page=1')
    expect(page.body['x-skillplane-page']).toMatchObject({ page: 1, pages: 1, pageSize: 500 })
    // Every skill the first document had, and the reloaded one.
    expect(page.body['x-skillplane-page'].skills).toBe(Object.keys(first.body.paths).filter((p) => p.endsWith('/invoke') && !p.includes('{')).length + 1)
    expect(await h.call('/openapi.json?page=2')).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_input', message: 'page 2 is past the last page, 1' } },
    })
    expect(await h.call('/openapi.json?page=0')).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_input', message: 'page must be a whole number from 1, got "0"' } },
    })
  })

  it('runs the approval flow: 202 with an approval id, decide, resume once with the same input', async () => {
    h = await start(database)
    const asked = await h.call('/api/skills/write_thing/invoke', { body: { input: { value: 'v' } }, key: h.keys.helper })
    expect(asked).toMatchObject({ status: 202, body: { ok: false, error: { code: 'approval_required', details: { approvalsRequired: 1 } } } })
    const id = asked.body.error.details.approvalId as string

    const asOperator = await h.call('/api/approvals?status=pending&skill=write_thing&agent=Helper', { key: h.keys.operator })
    expect(asOperator.body.items.map((a: { id: string }) => a.id)).toEqual([id])
    expect((await h.call('/api/approvals', { key: h.keys.viewer })).body.items).toEqual([])
    expect((await h.call('/api/approvals', { key: h.keys.helper })).body.items.map((a: { id: string }) => a.id)).toEqual([id])
    expect(await h.call(`/api/approvals/${id}`, { key: h.keys.viewer })).toMatchObject({ status: 404 })
    expect(await h.call('/api/approvals?status=maybe')).toMatchObject({ status: 400 })

    const approve = (key: string, body: object = {}) => h.call(`/api/approvals/${id}/approve`, { body, key })
    expect(await approve(h.keys.viewer)).toMatchObject({ status: 403, body: { error: { code: 'denied' } } })
    expect(await approve(h.keys.helper)).toMatchObject({ status: 403 })
    expect(await approve(h.keys.operator, { comment: 'ok', extra: 1 })).toMatchObject({ status: 400 })
    expect(await approve(h.keys.operator, { comment: 'ok' })).toMatchObject({ status: 200, body: { status: 'approved' } })
    expect(await approve(h.keys.admin)).toMatchObject({ status: 409, body: { error: { code: 'conflict' } } })

    const changed = await h.call('/api/skills/write_thing/invoke', { body: { input: { value: 'w' }, approvalId: id }, key: h.keys.helper })
    expect(changed).toMatchObject({ status: 403, body: { error: { code: 'denied' } } })
    const ran = await h.call('/api/skills/write_thing/invoke', { body: { input: { value: 'v' }, approvalId: id }, key: h.keys.helper })
    expect(ran).toMatchObject({ status: 200, body: { ok: true, data: { stored: 'v' } } })
    expect(await h.call(`/api/audit/${ran.body.callId}`)).toMatchObject({ body: { approvalId: id, status: 'ok' } })
    const detail = await h.call(`/api/approvals/${id}`)
    expect(detail.body).toMatchObject({ status: 'executed', executedCallId: ran.body.callId })
    expect(detail.body.history.map((e: { kind: string }) => e.kind)).toEqual([
      'approval.created',
      'approval.approval',
      'approval.approved',
      'approval.executed',
    ])
    const events = await h.call(`/api/audit/events?subject=approval:${id}`, { key: h.keys.operator })
    expect(events.body.items).toHaveLength(4)
    expect(await h.call('/api/audit/events', { key: h.keys.viewer })).toMatchObject({ status: 403 })

    // Rejection, and the requester can't approve its own request.
    const ids = Array.from({ length: 11 }, (_, i) => String(i))
    const own = await h.call('/api/skills/bulk_delete/invoke', { body: { input: { ids } }, key: h.keys.operator })
    const ownId = own.body.error.details.approvalId
    expect(await h.call(`/api/approvals/${ownId}/approve`, { body: {}, key: h.keys.operator })).toMatchObject({
      status: 403,
      body: { error: { message: 'the requester cannot approve their own request' } },
    })
    expect(await h.call(`/api/approvals/${ownId}/reject`, { body: { comment: 'too many' } })).toMatchObject({ status: 200, body: { status: 'rejected' } })
    expect(await h.call('/api/skills/bulk_delete/invoke', { body: { input: { ids }, approvalId: ownId }, key: h.keys.operator })).toMatchObject({
      status: 403,
      body: { error: { code: 'approval_rejected' } },
    })
  })

  it('refuses expired requests, runs one of concurrent resumptions, and keeps requests across a restart', async () => {
    const location = await database.create()
    h = await start(database, { approvals: { expiresAfterMs: 3_000 } }, location)
    const invoke = (value: string, approvalId?: string) =>
      h.call('/api/skills/write_thing/invoke', { body: { input: { value }, ...(approvalId && { approvalId }) }, key: h.keys.helper })
    const late = (await invoke('late')).body.error.details.approvalId
    const racing = (await invoke('race')).body.error.details.approvalId
    await h.call(`/api/approvals/${racing}/approve`, { body: {}, key: h.keys.operator })
    const results = await Promise.all(Array.from({ length: 6 }, () => invoke('race', racing)))
    expect(results.map((r) => r.status).sort()).toEqual([200, 403, 403, 403, 403, 403])

    const pending = (await invoke('survivor')).body.error.details.approvalId
    await h.server.close()
    await h.plane.close()
    h = await start(database, { approvals: { expiresAfterMs: 3_000 } }, location, h.keys)
    expect(await h.call(`/api/approvals/${pending}/approve`, { body: {}, key: h.keys.operator })).toMatchObject({ status: 200, body: { status: 'approved' } })
    expect(await invoke('survivor', pending)).toMatchObject({ status: 200 })

    await waitFor(async () => (await h.call(`/api/approvals/${late}`)).body.status === 'expired', 8_000)
    expect(await h.call(`/api/approvals/${late}/approve`, { body: {}, key: h.keys.operator })).toMatchObject({
      status: 409,
      body: { error: { code: 'conflict', message: expect.stringContaining('is expired') } },
    })
    expect(await invoke('late', late)).toMatchObject({ status: 410, body: { error: { code: 'approval_expired' } } })
  })

  it('waits for a decision when the invoke asks to', async () => {
    h = await start(database)
    const waiting = h.call('/api/skills/write_thing/invoke', { body: { input: { value: 'held' }, wait: true }, key: h.keys.helper })
    await waitFor(async () => (await h.call('/api/approvals?status=pending')).body.items.length === 1)
    const id = (await h.call('/api/approvals?status=pending')).body.items[0].id
    await h.call(`/api/approvals/${id}/approve`, { body: {}, key: h.keys.operator })
    expect(await waiting).toMatchObject({ status: 200, body: { ok: true, data: { stored: 'held' } } })
    expect(await h.call('/api/skills/write_thing/invoke', { body: { input: { value: 'x' }, wait: 'yes' }, key: h.keys.helper })).toMatchObject({ status: 400 })
  })

  it('registers signed procedures and requires them for dangerous approvals', async () => {
    const signer = sopSigner()
    h = await start(database, { sopKeys: [signer.config] })
    const sop = signer.sop({ id: 'wipe-procedure', skills: ['wipe_things'] })
    expect(await h.call('/api/sops', { body: sop, key: h.keys.operator })).toMatchObject({ status: 403 })
    expect(await h.call('/api/sops', { body: { ...sop, document: sop.document + 'edited' } })).toMatchObject({
      status: 400,
      body: { error: { message: expect.stringContaining('changed after it was signed') } },
    })
    expect(await h.call('/api/sops', { body: sop })).toMatchObject({ status: 201, body: { id: 'wipe-procedure', keyName: 'ops-lead' } })
    expect((await h.call('/api/sops', { key: h.keys.operator })).body.sops.map((s: { id: string }) => s.id)).toEqual(['wipe-procedure'])

    const asked = await h.call('/api/skills/wipe_things/invoke', { body: { input: { count: 2 } }, key: h.keys.helper })
    expect(asked).toMatchObject({ status: 202, body: { error: { details: { approvalsRequired: 2, sopRequired: true } } } })
    const id = asked.body.error.details.approvalId
    expect(await h.call(`/api/approvals/${id}/approve`, { body: {} })).toMatchObject({
      status: 400,
      body: { error: { message: expect.stringContaining('must cite') } },
    })
    expect(await h.call(`/api/approvals/${id}/approve`, { body: { sopId: 'wipe-procedure' }, key: h.keys.operator })).toMatchObject({ status: 403 })
    expect(await h.call(`/api/approvals/${id}/approve`, { body: { sopId: 'wipe-procedure' } })).toMatchObject({ status: 200, body: { status: 'pending' } })
    expect(await h.call(`/api/approvals/${id}/approve`, { body: { sopId: 'wipe-procedure' } })).toMatchObject({ status: 409 })
    expect(await h.call(`/api/approvals/${id}/approve`, { body: { sopId: 'wipe-procedure' }, key: h.keys.admin2 })).toMatchObject({
      status: 200,
      body: { status: 'approved' },
    })
    expect(await h.call('/api/skills/wipe_things/invoke', { body: { input: { count: 2 }, approvalId: id }, key: h.keys.helper })).toMatchObject({
      status: 200,
      body: { data: { wiped: 2 } },
    })
    expect(await h.call('/api/sops/wipe-procedure/revoke', { body: {} })).toMatchObject({ status: 200 })
    expect(await h.call('/api/sops/wipe-procedure/revoke', { body: {} })).toMatchObject({ status: 404 })
  })

  it('lets admins alone list, set and clear policy overrides', async () => {
    h = await start(database)
    expect(await h.call('/api/policies', { key: h.keys.operator })).toMatchObject({ status: 403 })
    const set = await h.call('/api/policies', { method: 'PUT', body: { skill: 'echo', level: 'agent', subject: 'h', decision: 'DENY' } })
    expect(set).toMatchObject({ status: 200, body: { skill: 'echo', level: 'agent', subject: 'helper', decision: 'DENY' } })
    expect(await h.call('/api/skills/echo/invoke', { body: { input: { message: 'x' } }, key: h.keys.helper })).toMatchObject({ status: 403 })
    expect((await h.call('/api/policies')).body.policies).toHaveLength(1)
    expect(await h.call('/api/policies', { method: 'PUT', body: { skill: 'echo', level: 'galaxy', decision: 'DENY' } })).toMatchObject({ status: 400 })
    expect(await h.call('/api/policies', { method: 'PUT', body: { skill: 'echo', level: 'agent', subject: 'nobody', decision: 'DENY' } })).toMatchObject({
      status: 400,
      body: { error: { message: 'unknown agent "nobody"' } },
    })
    expect(await h.call(`/api/policies/${set.body.id}`, { method: 'DELETE' })).toMatchObject({ status: 200 })
    expect(await h.call(`/api/policies/${set.body.id}`, { method: 'DELETE' })).toMatchObject({ status: 404 })
    expect(await h.call('/api/skills/echo/invoke', { body: { input: { message: 'x' } }, key: h.keys.helper })).toMatchObject({ status: 200 })
  })

  it('serves the web console at / and at its own paths, leaving the API and missing files to 404', async () => {
    h = await start(database)
    const page = await h.call('/', { key: null })
    expect(page.status).toBe(200)
    expect(page.type).toContain('text/html')
    expect(page.body).toContain('<div id="root">')
    const deep = await fetch(h.server.url + '/skills/echo')
    expect(deep.headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
    expect(await deep.text()).toBe(page.body)
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(page.body)![1]!
    const asset = await fetch(h.server.url + script)
    expect(asset.headers.get('content-type')).toContain('javascript')
    expect(asset.headers.get('cache-control')).toContain('immutable')
    expect(await h.call('/assets/missing.js', { key: null })).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } })
    expect(await h.call('/api/nothing-here')).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } })
  })

  it('takes secrets and settings from admins and never gives a secret back; a call without one answers 424 needs_auth', async () => {
    const whoami = defineSkill({
      key: 'whoami_upstream',
      description: 'Asks the upstream service who the token belongs to',
      class: 'safe',
      secrets: ['UPSTREAM_TOKEN'],
      run: (_input, ctx) => ({ token: ctx.secrets.get('UPSTREAM_TOKEN'), length: ctx.secrets.get('UPSTREAM_TOKEN').length }),
    })
    h = await start(database, { skills: [...testSkills(), whoami] })
    const refused = await h.call('/api/skills/whoami_upstream/invoke', { body: { input: {} }, key: h.keys.operator })
    expect(refused).toMatchObject({ status: 424, body: { ok: false, error: { code: 'needs_auth', details: { missing: { secrets: ['UPSTREAM_TOKEN'] } } } } })
    const listed = await h.call('/api/skills?connection=needs_auth', { key: h.keys.operator })
    expect(listed.body.skills.map((s: { key: string }) => s.key)).toEqual(['whoami_upstream'])
    expect((await h.call('/api/skills/whoami_upstream', { key: h.keys.operator })).body).toMatchObject({
      connection: { state: 'needs_auth' },
      needs: { secrets: ['UPSTREAM_TOKEN'], settings: [] },
    })

    // Only admins; the value goes in and never comes out.
    const put = (body: unknown, key = h.keys.admin) => h.call('/api/secrets/UPSTREAM_TOKEN', { method: 'PUT', body, key })
    expect((await put({ value: 'global-token-1' }, h.keys.operator)).status).toBe(403)
    expect(await put({ value: 'global-token-1' })).toMatchObject({ status: 200, body: { name: 'UPSTREAM_TOKEN', scope: 'global', version: 1 } })
    expect(await put({ value: 'oscars-token-22', user: 'oscar' })).toMatchObject({ status: 200, body: { scope: 'user', subject: 'oscar' } })
    expect(await put({ value: '' })).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_input', message: 'invalid secret: value: must not be empty' } },
    })
    expect(await put({ value: 'x', agent: 'nobody' })).toMatchObject({
      status: 400,
      body: { error: { message: expect.stringContaining('unknown agent "nobody"') } },
    })
    expect(await h.call('/api/secrets/bad-name', { method: 'PUT', body: { value: 'x' } })).toMatchObject({ status: 400 })
    // A value mistyped without quotes is not quoted back in the error.
    const malformed = await h.call('/api/secrets/UPSTREAM_TOKEN', { method: 'PUT', raw: '{"value": ghp_unquoted_secret_123}' })
    expect(malformed).toMatchObject({ status: 400, body: { error: { message: 'request body is not valid JSON' } } })
    expect(JSON.stringify(malformed.body)).not.toContain('ghp_unquoted')
    const list = await h.call('/api/secrets')
    expect(list.body.secrets).toHaveLength(2)
    expect(JSON.stringify(list.body)).not.toMatch(/global-token-1|oscars-token-22/)

    // The key's user name picks its own value; the result never carries it.
    const asOscar = await h.call('/api/skills/whoami_upstream/invoke', { body: { input: {} }, key: h.keys.operator })
    expect(asOscar).toMatchObject({ status: 200, body: { ok: true, data: { token: '[REDACTED]', length: 'oscars-token-22'.length } } })
    const asVera = await h.call('/api/skills/whoami_upstream/invoke', { body: { input: {} }, key: h.keys.viewer })
    expect(asVera).toMatchObject({ status: 200, body: { ok: true, data: { length: 'global-token-1'.length } } })
    const audit = await h.call('/api/audit?skill=whoami_upstream')
    expect(JSON.stringify(audit.body)).not.toMatch(/global-token-1|oscars-token-22/)

    expect(await h.call('/api/settings/REGION', { method: 'PUT', body: { value: 'eu-west' } })).toMatchObject({ status: 200, body: { value: 'eu-west' } })
    expect((await h.call('/api/settings')).body.settings).toEqual([expect.objectContaining({ name: 'REGION', value: 'eu-west' })])
    expect(await h.call('/api/secrets/UPSTREAM_TOKEN?user=oscar', { method: 'DELETE' })).toMatchObject({ status: 200, body: { scope: 'user' } })
    expect(await h.call('/api/secrets/UPSTREAM_TOKEN?user=oscar', { method: 'DELETE' })).toMatchObject({ status: 404 })
    expect(await h.call('/api/secrets/UPSTREAM_TOKEN?owner=x', { method: 'DELETE' })).toMatchObject({ status: 400 })
    // The store's own refusals of a delete (an unknown agent, a bad name) are 400 with its reason, like a put's.
    expect(await h.call('/api/secrets/UPSTREAM_TOKEN?agent=nobody', { method: 'DELETE' })).toMatchObject({
      status: 400,
      body: { ok: false, error: { code: 'invalid_input', message: 'unknown agent "nobody": declare it in the config and run skillplane sync' } },
    })
    expect(await h.call('/api/settings/bad-name', { method: 'DELETE' })).toMatchObject({
      status: 400,
      body: { ok: false, error: { code: 'invalid_input', message: expect.stringContaining('setting name "bad-name" is not valid') } },
    })
  })
})
