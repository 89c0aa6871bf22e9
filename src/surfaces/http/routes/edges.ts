import { Hono } from 'hono'
import type { Skillplane } from '../../../skillplane/index.js'
import type { HttpEnv } from '../http-env.js'
import { errorResponse } from '../error-response.js'
import { parseBody } from '../parse-body.js'
import { edgeSecretsBody, enrollEdgeBody, rotateEdgeBody } from '../request-schemas.js'
import { requireRole } from '../middleware/require-role.js'

export function edgeRoutes(plane: Skillplane): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>()

  app.get('/', requireRole('operator'), (c) => c.json({ edges: plane.sources.edges.list() }))

  app.post('/', requireRole('admin'), async (c) => {
    const body = await parseBody(c, enrollEdgeBody, 'invalid enrollment')
    if (!body.ok) return body.response
    const result = await plane.sources.edges.enroll(body.value, c.get('caller'))
    if (!result.ok) return errorResponse(c, result.code, result.message)
    return c.json({ edge: result.edge, token: result.token }, 201)
  })

  app.get('/:id', requireRole('operator'), (c) => {
    const edge = plane.sources.edges.get(c.req.param('id'))
    return edge ? c.json(edge) : errorResponse(c, 'not_found', `no edge "${c.req.param('id')}"`)
  })

  app.put('/:id/secrets', requireRole('admin'), async (c) => {
    const body = await parseBody(c, edgeSecretsBody, 'invalid secret grant')
    if (!body.ok) return body.response
    const result = await plane.sources.edges.grantSecrets(c.req.param('id'), body.value.secrets, c.get('caller'))
    return result.ok ? c.json(result.edge) : errorResponse(c, result.code, result.message)
  })

  app.post('/:id/rotate', requireRole('admin'), async (c) => {
    const body = await parseBody(c, rotateEdgeBody, 'invalid rotation')
    if (!body.ok) return body.response
    const result = await plane.sources.edges.rotate(c.req.param('id'), body.value, c.get('caller'))
    if (!result.ok) return errorResponse(c, result.code, result.message)
    return c.json({ edge: result.edge, token: result.token })
  })

  app.delete('/:id', requireRole('admin'), async (c) => {
    const revoked = await plane.sources.edges.revoke(c.req.param('id'), c.get('caller'))
    return revoked ? c.json(revoked) : errorResponse(c, 'not_found', `no enrolled edge "${c.req.param('id')}" (or it was revoked already)`)
  })
  return app
}
