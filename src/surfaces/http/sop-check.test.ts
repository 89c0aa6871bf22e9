import { afterEach, describe, expect, it } from 'vitest'
import { databases } from '../../test-support/databases.js'
import { agentCaller, approvalIdOf, openTestPlane } from '../../test-support/fixtures.js'
import { sopSigner } from '../../test-support/sop.js'
import type { Skillplane } from '../../agents/index.js'
import { startHttpServer, type HttpServer } from './start-http-server.js'

describe.each(databases)('GET /api/approvals/{id}/sop-check on $name', (database) => {
  let plane: Skillplane | undefined
  let server: HttpServer | undefined
  afterEach(async () => {
    await server?.close()
    await plane?.close()
  })

  it('answers what citing a procedure would: verified, outside its constraints, not covering, unknown; and refuses bad asks', async () => {
    const signer = sopSigner()
    plane = await openTestPlane(database, { sopKeys: [signer.config] })
    server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    const key = (await plane.people.keys.create({ name: 'alice', role: 'admin' }, plane.now())).key
    const viewer = (await plane.people.keys.create({ name: 'vera', role: 'viewer' }, plane.now())).key
    const call = async (path: string, as = key, body?: unknown) => {
      const response = await fetch(server!.url + path, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { authorization: `Bearer ${as}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      return { status: response.status, body: (await response.json()) as any }
    }
    for (const sop of [
      signer.sop({ id: 'any-wipe', skills: ['wipe_things'] }),
      signer.sop({ id: 'small-wipes', skills: ['wipe_things'], constraints: { wipe_things: { type: 'object', properties: { count: { maximum: 2 } } } } }),
      signer.sop({ id: 'echo-only', skills: ['echo'] }),
    ])
      expect((await call('/api/sops', key, sop)).status).toBe(201)
    const id = approvalIdOf(await plane.invoke('wipe_things', { count: 3 }, { caller: agentCaller('helper') }))
    const check = (sopId: string) => call(`/api/approvals/${id}/sop-check?sopId=${sopId}`)

    expect(await check('any-wipe')).toMatchObject({ status: 200, body: { ok: true, sop: { id: 'any-wipe' } } })
    expect((await check('small-wipes')).body).toMatchObject({ ok: false, message: expect.stringMatching(/outside SOP "small-wipes"/) })
    expect((await check('echo-only')).body).toMatchObject({ ok: false, message: 'SOP "echo-only" does not cover skill "wipe_things" (it covers echo)' })
    expect((await check('nope')).body).toEqual({ ok: false, message: 'no registered SOP "nope"' })
    // The check is what approving checks: the outside one is refused there too.
    expect((await call(`/api/approvals/${id}/approve`, key, { sopId: 'small-wipes' })).body.error.message).toMatch(/outside SOP "small-wipes"/)

    expect((await call(`/api/approvals/${id}/sop-check`)).body.error).toMatchObject({ code: 'invalid_input', message: expect.stringMatching(/sopId/) })
    expect((await call(`/api/approvals/01ARZ3NDEKTSV4RRFFQ69G5FAV/sop-check?sopId=any-wipe`)).status).toBe(404)
    expect((await call(`/api/approvals/${id}/sop-check?sopId=any-wipe`, viewer)).status).toBe(403)
  })
})
