import { afterEach, describe, expect, it } from 'vitest'
import { databases } from '../../test-support/databases.js'
import { openTestPlane } from '../../test-support/fixtures.js'
import { startHttpServer } from './start-http-server.js'

const [sqlite] = databases

describe('a route asked with a method it does not take', () => {
  const cleanup: Array<() => Promise<unknown>> = []
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step().catch(() => {})
  })

  it('answers 405 with an Allow header and an envelope naming the methods it takes, over real HTTP', async () => {
    const plane = await openTestPlane(sqlite!)
    cleanup.push(() => plane.close())
    const server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    cleanup.push(() => server.close())
    const key = (await plane.people.keys.create({ name: 'root', role: 'admin' }, plane.now())).key
    const ask = async (method: string, path: string, bearer: string | null = key) => {
      const response = await fetch(`${server.url}${path}`, { method, headers: bearer ? { authorization: `Bearer ${bearer}` } : {} })
      const text = await response.text()
      return { status: response.status, allow: response.headers.get('allow'), body: text ? (JSON.parse(text) as unknown) : null }
    }
    const refused = (path: string, method: string, allow: string) => ({
      status: 405,
      allow,
      body: { ok: false, error: { code: 'method_not_allowed', message: `${path} does not take ${method}: use ${allow}` } },
    })

    expect(await ask('GET', '/api/skills/echo/invoke')).toEqual(refused('/api/skills/echo/invoke', 'GET', 'POST'))
    expect(await ask('DELETE', '/api/skills/echo')).toEqual(refused('/api/skills/echo', 'DELETE', 'GET, HEAD, PATCH'))
    expect(await ask('POST', '/api/health')).toEqual(refused('/api/health', 'POST', 'GET, HEAD'))
    expect(await ask('PUT', '/api/approvals/some-id/approve')).toEqual(refused('/api/approvals/some-id/approve', 'PUT', 'POST'))
    expect(await ask('DELETE', '/openapi.json', null)).toEqual(refused('/openapi.json', 'DELETE', 'GET, HEAD'))
    // HEAD is answered by the GET route, as the Allow header says.
    expect(await ask('HEAD', '/api/health')).toMatchObject({ status: 200, body: null })

    // A path no route has stays 404, whatever the method; the key is checked before either.
    expect(await ask('GET', '/api/nothing-here')).toMatchObject({
      status: 404,
      allow: null,
      body: { error: { code: 'not_found', message: 'no route GET /api/nothing-here' } },
    })
    expect(await ask('DELETE', '/api/skills/echo/nothing')).toMatchObject({ status: 404, allow: null })
    expect(await ask('POST', '/no-such-page', null)).toMatchObject({ status: 404, allow: null })
    expect(await ask('GET', '/api/skills/echo/invoke', null)).toMatchObject({ status: 401, allow: null })
    // The route itself still answers its own method.
    expect((await ask('GET', '/api/skills/echo')).status).toBe(200)
  })
})
