import { OpenAPIHono, createRoute } from '@hono/zod-openapi'
import type { Skillplane } from '../../../agents/index.js'
import type { HttpEnv } from '../http-env.js'
import { body, failures, params, returns, serve } from '../openapi/declare.js'
import { Edge, EdgeList, EdgeToken } from '../openapi/response-schemas.js'
import { errorResponse } from '../error-response.js'
import { parseBody } from '../parse-body.js'
import { edgeSecretsBody, enrollEdgeBody, rotateEdgeBody } from '../request-schemas.js'
import { requireAbility } from '../middleware/require-ability.js'

export function edgeRoutes(plane: Skillplane): OpenAPIHono<HttpEnv> {
  const app = new OpenAPIHono<HttpEnv>()

  const list = createRoute({
    method: 'get',
    path: '/',
    summary: 'Enrolled edges with their state and offered skills (operator or admin)',
    middleware: [requireAbility('readEdges')] as const,
    responses: { 200: returns(EdgeList, '{ edges }'), ...failures(401, 403) },
  })
  serve(app, list, (c) => c.json({ edges: plane.sources.edges.list() }))

  const enroll = createRoute({
    method: 'post',
    path: '/',
    summary: 'Enroll an edge: its token is shown once (admin)',
    middleware: [requireAbility('manageEdges')] as const,
    request: { ...body(enrollEdgeBody) },
    responses: { 201: returns(EdgeToken, '{ edge, token }'), ...failures(400, 401, 403, 409) },
  })
  serve(app, enroll, async (c) => {
    const body = await parseBody(c, enrollEdgeBody, 'invalid enrollment')
    if (!body.ok) return body.response
    const result = await plane.sources.edges.enroll(body.value, c.get('caller'))
    if (!result.ok) return errorResponse(c, result.code, result.message)
    return c.json({ edge: result.edge, token: result.token }, 201)
  })

  const show = createRoute({
    method: 'get',
    path: '/{id}',
    summary: 'One edge (operator or admin)',
    middleware: [requireAbility('readEdges')] as const,
    request: { ...params('/{id}') },
    responses: { 200: returns(Edge, 'The edge'), ...failures(401, 403, 404) },
  })
  serve(app, show, (c) => {
    const edge = plane.sources.edges.get(c.req.param('id'))
    return edge ? c.json(edge) : errorResponse(c, 'not_found', `no edge "${c.req.param('id')}"`)
  })

  const secrets = createRoute({
    method: 'put',
    path: '/{id}/secrets',
    summary: 'Set the secret names calls of its packs may carry (admin)',
    middleware: [requireAbility('manageEdges')] as const,
    request: { ...params('/{id}/secrets'), ...body(edgeSecretsBody) },
    responses: { 200: returns(Edge, 'The edge'), ...failures(400, 401, 403, 404) },
  })
  serve(app, secrets, async (c) => {
    const body = await parseBody(c, edgeSecretsBody, 'invalid secret grant')
    if (!body.ok) return body.response
    const result = await plane.sources.edges.grantSecrets(c.req.param('id'), body.value.secrets, c.get('caller'))
    return result.ok ? c.json(result.edge) : errorResponse(c, result.code, result.message)
  })

  const rotate = createRoute({
    method: 'post',
    path: '/{id}/rotate',
    summary: 'A new token for the edge; the old one stops working (admin)',
    middleware: [requireAbility('manageEdges')] as const,
    request: { ...params('/{id}/rotate'), ...body(rotateEdgeBody) },
    responses: { 200: returns(EdgeToken, '{ edge, token }'), ...failures(400, 401, 403, 404) },
  })
  serve(app, rotate, async (c) => {
    const body = await parseBody(c, rotateEdgeBody, 'invalid rotation')
    if (!body.ok) return body.response
    const result = await plane.sources.edges.rotate(c.req.param('id'), body.value, c.get('caller'))
    if (!result.ok) return errorResponse(c, result.code, result.message)
    return c.json({ edge: result.edge, token: result.token })
  })

  const revoke = createRoute({
    method: 'delete',
    path: '/{id}',
    summary: 'Revoke an edge: it is disconnected and its token refused (admin)',
    middleware: [requireAbility('manageEdges')] as const,
    request: { ...params('/{id}') },
    responses: { 200: returns(Edge, 'The revoked edge'), ...failures(401, 403, 404) },
  })
  serve(app, revoke, async (c) => {
    const revoked = await plane.sources.edges.revoke(c.req.param('id'), c.get('caller'))
    return revoked ? c.json(revoked) : errorResponse(c, 'not_found', `no enrolled edge "${c.req.param('id')}" (or it was revoked already)`)
  })
  return app
}
