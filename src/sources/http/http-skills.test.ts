import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { databases } from '../../test-support/databases.js'
import { admin, agentCaller, openTestPlane, testSkills } from '../../test-support/fixtures.js'
import type { SkillplaneConfig } from '../../config/index.js'
import type { Skillplane } from '../../agents/index.js'
import { startTestService, TEST_TOKEN, type Received } from '../../test-support/http-test-service.js'

const SPEC = readFileSync(join(import.meta.dirname, 'fixtures/inventory.openapi.json'), 'utf8')
const API_KEY = 'echo-api-key-55aa0c'

let service: { url: string; received: Received[]; close(): Promise<void> }
beforeAll(async () => {
  service = await startTestService(SPEC)
})
afterAll(() => service.close())

const planes: Skillplane[] = []
afterEach(async () => {
  await Promise.all(planes.splice(0).map((p) => p.close()))
})
const open = async (config: SkillplaneConfig) => {
  const plane = await openTestPlane(databases[0]!, config)
  planes.push(plane)
  return plane
}

const echoInput = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } }, note: { type: 'string' }, qty: { type: 'integer' } },
}

describe('declarative HTTP skills (httpSkills)', () => {
  it('builds the request from input: encoded path parameters, query, a header from a secret, and a JSON body', async () => {
    const plane = await open({
      httpSkills: [
        {
          key: 'echo_get',
          description: 'Echo a GET',
          method: 'get',
          url: `${service.url}/echo/things/{id}?format=json`,
          query: ['tags'],
          headers: { 'X-Api-Key': { secret: 'ECHO_KEY' }, 'X-Client': 'skillplane' },
          input: echoInput,
        },
        { key: 'echo_post', description: 'Echo a POST', method: 'POST', url: `${service.url}/echo/things/{id}`, input: echoInput },
        {
          key: 'echo_put',
          description: 'Echo a PUT',
          method: 'PUT',
          url: `${service.url}/echo/things/{id}`,
          body: { quantity: 'qty', id: 'id' },
          input: echoInput,
          class: 'safe',
        },
      ],
    })
    const get = plane.skills.get('echo_get')!
    expect(get).toMatchObject({
      source: 'http',
      class: 'safe',
      category: 'http',
      tags: ['http'],
      secrets: ['ECHO_KEY'],
      origin: 'config httpSkills "echo_get"',
    })
    expect(plane.skills.connectionState(get, { caller: admin, agentId: null }).state).toBe('needs_auth')
    expect(await plane.invoke('echo_get', { id: 'x' }, { caller: admin })).toMatchObject({ ok: false, error: { code: 'needs_auth' } })
    await plane.values.secrets.set('ECHO_KEY', API_KEY)
    const got = await plane.invoke('echo_get', { id: 'a/b c?', tags: ['red', 'blue'] }, { caller: admin })
    expect(got).toMatchObject({
      ok: true,
      data: { method: 'GET', raw: '/echo/things/a%2Fb%20c%3F?format=json&tags=red&tags=blue', body: null, key: '[REDACTED]' },
    })
    expect(service.received.at(-1)!.headers).toMatchObject({ 'x-api-key': API_KEY, 'x-client': 'skillplane' })
    // A dot segment would climb out of the path the config names.
    const sent = service.received.length
    for (const id of ['..', '.', '']) {
      expect(await plane.invoke('echo_get', { id }, { caller: admin })).toMatchObject({
        ok: false,
        error: { code: 'invalid_input', message: `path parameter "id" can't be "${id}"` },
      })
    }
    expect(service.received.length).toBe(sent)
    expect(JSON.stringify(await plane.audit.query({ limit: 10 }))).not.toContain(API_KEY)

    // POST: the input not used in the path is the body.
    expect(await plane.invoke('echo_post', { id: '7', note: 'hi', qty: 2 }, { caller: admin })).toMatchObject({
      ok: true,
      data: { method: 'POST', path: '/echo/things/7', body: { note: 'hi', qty: 2 } },
    })
    expect(plane.skills.get('echo_post')!.class).toBe('mutating')
    // body as a mapping: body field ← input property.
    const put = await plane.invoke('echo_put', { id: '7', qty: 5, note: 'left out' }, { caller: admin })
    expect(put, JSON.stringify(put)).toMatchObject({
      ok: true,
      data: { method: 'PUT', body: { quantity: 5, id: '7' } },
    })
    expect(plane.skills.get('echo_put')!.class).toBe('safe')
  })

  it('asks for approval before a DELETE an agent makes', async () => {
    const plane = await open({
      httpSkills: [
        { key: 'drop_thing', description: 'Delete a thing', method: 'DELETE', url: `${service.url}/echo/things/{id}`, input: echoInput, agents: ['Helper'] },
      ],
    })
    expect(plane.skills.get('drop_thing')!.class).toBe('dangerous')
    const before = service.received.length
    expect(await plane.invoke('drop_thing', { id: '1' }, { caller: agentCaller('helper') })).toMatchObject({ ok: false, error: { code: 'approval_required' } })
    expect(service.received.length).toBe(before)
  })

  it('keeps to its egress rules: allowed hosts, same-origin redirects, a size cap, the deadline', async () => {
    // The fixed part of the header in the config, the token alone in the secret.
    const auth = { Authorization: { secret: 'INV_AUTH', prefix: 'Bearer ' } }
    const plane = await open({
      httpSkills: [
        { key: 'fenced', description: 'A host not allowed', method: 'GET', url: `${service.url}/echo`, allowHosts: ['api.example.com', '*.example.org'] },
        { key: 'bounce', description: 'Redirected off host', method: 'GET', url: `${service.url}/api/elsewhere`, headers: auth },
        { key: 'hop', description: 'Redirected on host', method: 'GET', url: `${service.url}/api/hop`, headers: auth },
        { key: 'huge', description: 'Too large', method: 'GET', url: `${service.url}/api/huge`, headers: auth, maxResponseBytes: 4096 },
        { key: 'too_slow', description: 'Too slow', method: 'GET', url: `${service.url}/api/slow`, headers: auth, timeoutMs: 200 },
        { key: 'fail_long', description: 'Echoes the token where the error is cut', method: 'GET', url: `${service.url}/api/fail-long`, headers: auth },
      ],
    })
    await plane.values.secrets.set('INV_AUTH', TEST_TOKEN)
    const before = service.received.length
    expect(await plane.invoke('fenced', {}, { caller: admin })).toMatchObject({
      ok: false,
      error: {
        code: 'executor_error',
        message: `skill "fenced" failed: ${new URL(service.url).host} is not an allowed host of this source (allowHosts: api.example.com, *.example.org)`,
      },
    })
    expect(service.received.length).toBe(before)
    expect(await plane.invoke('bounce', {}, { caller: admin })).toMatchObject({
      ok: false,
      error: { code: 'executor_error', message: expect.stringContaining('refused a redirect') },
    })
    expect(await plane.invoke('hop', {}, { caller: admin })).toMatchObject({ ok: true, data: { items: expect.any(Array) } })
    expect(await plane.invoke('huge', {}, { caller: admin })).toMatchObject({
      ok: false,
      error: { code: 'executor_error', message: expect.stringContaining('larger than maxResponseBytes (4096 bytes)') },
    })
    const slow = await plane.invoke('too_slow', {}, { caller: admin })
    expect(slow, JSON.stringify(slow)).toMatchObject({ ok: false, error: { code: 'timeout' } })
    // Scrubbed before the error body is cut: not even the token's first characters are left at the cut.
    const failed = await plane.invoke('fail_long', {}, { caller: admin })
    expect(failed).toMatchObject({ ok: false, error: { code: 'executor_error', message: expect.stringContaining('HTTP 500') } })
    expect(JSON.stringify(failed) + JSON.stringify(await plane.audit.get(failed.callId))).not.toContain(TEST_TOKEN.slice(0, 8))
  })

  it('reports a key another source holds, and registers the rest', async () => {
    const [first] = testSkills()
    const plane = await open({
      httpSkills: [
        { key: first!.key, description: 'Collides', method: 'GET', url: `${service.url}/echo` },
        { key: 'fine', description: 'Fine', method: 'GET', url: `${service.url}/echo` },
      ],
    })
    expect(plane.sources.report().http).toEqual({
      skills: ['fine'],
      entries: [
        {
          name: 'httpSkills',
          state: 'loaded',
          reason: null,
          skills: ['fine'],
          problems: [expect.stringMatching(new RegExp(`^config httpSkills "${first!.key}": its key "${first!.key}" is taken by code skill`))],
          details: {},
        },
      ],
      findings: [],
    })
    expect(plane.skills.get(first!.key)!.source).toBe('code')
  })

  it('rejects a bad entry naming the field and what is wrong', async () => {
    const base = { key: 'k', description: 'd', method: 'GET', url: `${service.url}/x` }
    const cases: [Record<string, unknown>, string][] = [
      [{ url: `${service.url}/things/{id}` }, 'httpSkills[0].url: the placeholder {id} must be a required property of input'],
      [{ url: `${service.url}/x?id={id}`, input: echoInput }, 'httpSkills[0].url: placeholders belong in the path; use query for parameters'],
      [{ query: ['nope'] }, 'httpSkills[0].query: "nope" is not a property of input'],
      [{ body: ['id'], input: echoInput }, 'httpSkills[0].body: a GET request has no body'],
      [{ method: 'TRACE' }, 'httpSkills[0].method: a method: GET, HEAD, POST, PUT, PATCH or DELETE'],
      [{ url: 'ftp://example.com/x' }, 'httpSkills[0].url: an http(s) URL'],
      [{ url: 'https://user:pw@example.com/x' }, 'httpSkills[0].url: must not carry credentials'],
      [{ description: ' ' }, 'httpSkills[0].description: a description is required'],
      [{ key: 'Bad Key' }, 'httpSkills[0].key: must be lower_snake: lowercase letters, digits and single underscores, starting with a letter'],
      [{ input: { type: 'array' } }, 'httpSkills[0].input.type: the input schema must be of type "object"'],
      [{ headers: { 'X-Key': { secret: 'bad name' } } }, 'httpSkills[0].headers.X-Key.secret: a secret name'],
    ]
    for (const [change, message] of cases) await expect(open({ httpSkills: [{ ...base, ...change } as never] }), message).rejects.toThrow(message)
    await expect(open({ httpSkills: [base as never, base as never] })).rejects.toThrow('httpSkills: HTTP skill keys must be unique')
  })
})
