import { OpenAPIHono, createRoute } from '@hono/zod-openapi'
import type { Skillplane } from '../../../agents/index.js'
import type { HttpEnv } from '../http-env.js'
import { body, failures, params, returns, serve } from '../openapi/declare.js'
import { Sop, SopList, SopRevoked } from '../openapi/response-schemas.js'
import { errorResponse } from '../error-response.js'
import { parseBody } from '../parse-body.js'
import { sopRegisterBody } from '../request-schemas.js'
import { requireAbility } from '../middleware/require-ability.js'

export function sopRoutes(plane: Skillplane): OpenAPIHono<HttpEnv> {
  const app = new OpenAPIHono<HttpEnv>()

  const list = createRoute({
    method: 'get',
    path: '/',
    summary: 'Signed procedures (operator or admin)',
    middleware: [requireAbility('readSops')] as const,
    responses: { 200: returns(SopList, 'SOPs'), ...failures(401, 403) },
  })
  serve(app, list, async (c) => c.json({ sops: await plane.approvals.sops.list() }))

  const register = createRoute({
    method: 'post',
    path: '/',
    summary: 'Register a signed procedure (admin)',
    middleware: [requireAbility('manageSops')] as const,
    request: { ...body(sopRegisterBody) },
    responses: { 201: returns(Sop, 'Registered'), ...failures(400, 401, 403) },
  })
  serve(app, register, async (c) => {
    const body = await parseBody(c, sopRegisterBody)
    if (!body.ok) return body.response
    const result = await plane.approvals.sops.register(body.value.document, body.value.signature, c.get('caller'), plane.now())
    if (!result.ok) return errorResponse(c, 'invalid_input', `SOP refused: ${result.message}`)
    return c.json(result.value, 201)
  })

  const revoke = createRoute({
    method: 'post',
    path: '/{id}/revoke',
    summary: 'Revoke a signed procedure (admin)',
    middleware: [requireAbility('manageSops')] as const,
    request: { ...params('/{id}/revoke') },
    responses: { 200: returns(SopRevoked, 'Revoked'), ...failures(401, 403, 404) },
  })
  serve(app, revoke, async (c) => {
    const revoked = await plane.approvals.sops.revoke(c.req.param('id'), c.get('caller'), plane.now())
    if (!revoked) return errorResponse(c, 'not_found', `no active SOP "${c.req.param('id')}"`)
    return c.json({ id: c.req.param('id'), revoked: true })
  })
  return app
}
