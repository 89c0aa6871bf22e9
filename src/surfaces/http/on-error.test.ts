import { afterEach, describe, expect, it, vi } from 'vitest'
import { databases } from '../../test-support/databases.js'
import { openTestPlane } from '../../test-support/fixtures.js'
import { SkillError } from '../../runtime/index.js'
import { AccountError } from '../../accounts/index.js'
import type { Skillplane } from '../../agents/index.js'
import { startHttpServer, type HttpServer } from './start-http-server.js'

const [sqlite] = databases

// The app's onError is the one place errors become answers: a route throws, and this is what a client sees.
describe('HTTP answers to thrown errors', () => {
  let plane: Skillplane
  let server: HttpServer
  afterEach(async () => {
    await server?.close()
    await plane?.close()
  })

  /** A real server whose reload route meets `error`: the route calls the plane, and what the plane throws reaches onError. */
  async function start() {
    plane = await openTestPlane(sqlite!)
    server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    const key = (await plane.people.keys.create({ name: 'root', role: 'admin' }, plane.now())).key
    return async (error: unknown) => {
      plane.sources.reload = () => Promise.reject(error)
      const response = await fetch(`${server.url}/api/sources/reload`, { method: 'POST', headers: { authorization: `Bearer ${key}` } })
      return { status: response.status, text: await response.text() }
    }
  }
  const throwing = async (error: unknown) => (await start())(error)

  it('answers an unexpected error 500 internal, logged, with no message, stack or secret of it', async () => {
    const call = await start()
    const logged = vi.spyOn(plane.logger, 'error').mockImplementation(() => undefined)
    const error = new TypeError('cannot read the vault at /srv/keys with password hunter2')
    const { status, text } = await call(error)
    expect(status).toBe(500)
    expect(JSON.parse(text)).toEqual({ ok: false, error: { code: 'internal', message: 'internal error; see the server log' } })
    expect(text).not.toMatch(/hunter2|\/srv\/keys|TypeError|at .*\.ts/)
    expect(logged).toHaveBeenCalledWith({ err: error, path: '/api/sources/reload' }, 'unhandled HTTP error')
  })

  it('answers a skillplane error with its code, its status and its message', async () => {
    const { status, text } = await throwing(new AccountError('conflict', 'a group named "ops" exists already'))
    expect(status).toBe(409)
    expect(JSON.parse(text)).toEqual({ ok: false, error: { code: 'conflict', message: 'a group named "ops" exists already' } })
  })

  it('answers an executor-style refusal the same way: a SkillError not_found is 404', async () => {
    const { status, text } = await throwing(new SkillError('not_found', 'no pack "weather"'))
    expect(status).toBe(404)
    expect(JSON.parse(text)).toEqual({ ok: false, error: { code: 'not_found', message: 'no pack "weather"' } })
  })

  it("recognises another copy of the package's errors by their Symbol.for brand, not by class", async () => {
    const foreign = Object.assign(new Error('the upstream refused the token'), { [Symbol.for('skillplane.error')]: true, code: 'needs_auth' })
    const { status, text } = await throwing(foreign)
    expect(status).toBe(424)
    expect(JSON.parse(text)).toEqual({ ok: false, error: { code: 'needs_auth', message: 'the upstream refused the token' } })
  })

  it('does not take a look-alike without the brand for one: an Error with a code is still internal', async () => {
    const { status, text } = await throwing(Object.assign(new Error('EACCES: permission denied, open /etc/shadow'), { code: 'not_found' }))
    expect(status).toBe(500)
    expect(JSON.parse(text)).toEqual({ ok: false, error: { code: 'internal', message: 'internal error; see the server log' } })
  })

  it('answers a branded error with a code this version has no status for as internal, never as a 200', async () => {
    const call = await start()
    vi.spyOn(plane.logger, 'error').mockImplementation(() => undefined)
    const { status, text } = await call(Object.assign(new Error('slow down'), { [Symbol.for('skillplane.error')]: true, code: 'rate_limited' }))
    expect(status).toBe(500)
    expect(JSON.parse(text)).toEqual({ ok: false, error: { code: 'internal', message: 'internal error; see the server log' } })
  })

  it('answers a lost database the one way, with Retry-After, even when a skillplane error wraps it', async () => {
    const call = await start()
    vi.spyOn(plane.logger, 'warn').mockImplementation(() => undefined)
    const lost = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })
    const wrapped = Object.assign(new SkillError('unavailable', 'could not list the approvals'), { cause: lost })
    const { status, text } = await call(wrapped)
    expect(status).toBe(503)
    expect(JSON.parse(text).error.message).toMatch(/^the database is unavailable: .*retry in a few seconds$/)
  })
})
