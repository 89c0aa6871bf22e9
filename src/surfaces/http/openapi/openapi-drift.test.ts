import { afterEach, describe, expect, it } from 'vitest'
import { databases } from '../../../test-support/databases.js'
import { openTestPlane } from '../../../test-support/fixtures.js'
import type { Skillplane } from '../../../agents/index.js'
import { createHttpApp } from '../create-http-app.js'

const [sqlite] = databases
// Served beside the API but not part of it: the console (or landing page), the document itself, MCP, and the pages a
// browser passes through while connecting an OAuth account.
const NOT_API = new Set(['/', '/*', '/openapi.json', '/mcp', '/oauth/start', '/oauth/callback'])

describe('/openapi.json is generated from the routes', () => {
  let plane: Skillplane | undefined
  afterEach(async () => {
    await plane?.close()
  })

  it('documents exactly the routes the app serves, with the schemas the routes validate with', async () => {
    plane = await openTestPlane(sqlite!)
    const app = createHttpApp(plane)
    const key = (await plane.people.keys.create({ name: 'root', role: 'admin' }, plane.now())).key
    const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' }
    const document = (await (await app.request('/openapi.json')).json()) as { paths: Record<string, Record<string, any>> }

    // Every handler the app registered, as OpenAPI paths; middleware (ALL) is not a route.
    const served = new Set(
      app.routes.filter((r) => r.method !== 'ALL' && !NOT_API.has(r.path)).map((r) => `${r.method.toLowerCase()} ${r.path.replace(/:(\w+)/g, '{$1}')}`),
    )
    const documented = new Set(Object.entries(document.paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method} ${path}`)))
    expect([...documented].sort()).toEqual([...served].sort())

    // The run prompt's cap (it drifted once): what the document allows, the route accepts, and one more is refused.
    const prompt = document.paths['/api/agents/{id}/runs']!.post.requestBody.content['application/json'].schema.properties.prompt
    expect(prompt).toMatchObject({ type: 'string', minLength: 1, maxLength: 100_000 })
    const tooLong = await app.request('/api/agents/helper/runs', {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ prompt: 'x'.repeat(prompt.maxLength + 1) }),
    })
    expect(tooLong.status).toBe(400)
    expect(await tooLong.json()).toMatchObject({ error: { code: 'invalid_input', message: expect.stringContaining('prompt: Too big') } })

    // A query parameter the document lists with its allowed values is checked by the route the same way.
    const status = document.paths['/api/approvals']!.get.parameters.find((p: { name: string }) => p.name === 'status')
    expect(status.schema.enum).toContain('withdrawn')
    expect((await app.request('/api/approvals?status=withdrawn', { headers: auth })).status).toBe(200)
    const bad = await app.request('/api/approvals?status=lost', { headers: auth })
    expect(bad.status).toBe(400)
    expect(status.schema.enum).not.toContain('lost')
    const available = document.paths['/api/skills']!.get.parameters.find((p: { name: string }) => p.name === 'available')
    expect(available.schema.enum).toEqual(['true', 'false'])
    expect(await (await app.request('/api/skills?available=maybe', { headers: auth })).json()).toMatchObject({
      error: { code: 'invalid_input', message: 'invalid skills query: available: must be true or false' },
    })
    // A body field the document doesn't list is refused by name.
    const decision = document.paths['/api/approvals/{id}/approve']!.post.requestBody.content['application/json'].schema
    expect(Object.keys(decision.properties).sort()).toEqual(['comment', 'minutes', 'scope', 'sopId'])
    expect(decision.properties.scope.enum).toEqual(['once', 'conversation', 'always'])
    expect(decision.properties.minutes).toMatchObject({ type: 'integer', minimum: 1, maximum: 1440 })
    expect(decision.additionalProperties).toBe(false)
    const rejection = document.paths['/api/approvals/{id}/reject']!.post.requestBody.content['application/json'].schema
    expect(Object.keys(rejection.properties).sort()).toEqual(['comment', 'sopId'])
  })
})
