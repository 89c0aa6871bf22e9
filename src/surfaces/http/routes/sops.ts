import { Hono } from 'hono'
import type { Skillplane } from '../../../skillplane/index.js'
import type { HttpEnv } from '../http-env.js'
import { errorResponse } from '../error-response.js'
import { parseBody } from '../parse-body.js'
import { sopRegisterBody } from '../request-schemas.js'
import { requireRole } from '../middleware/require-role.js'

export function sopRoutes(plane: Skillplane): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>()

  app.get('/', requireRole('operator'), async (c) => c.json({ sops: await plane.approvals.sops.list() }))

  app.post('/', requireRole('admin'), async (c) => {
    const body = await parseBody(c, sopRegisterBody)
    if (!body.ok) return body.response
    const result = await plane.approvals.sops.register(body.value.document, body.value.signature, c.get('caller'), plane.now())
    if (!result.ok) return errorResponse(c, 'invalid_input', `SOP refused: ${result.message}`)
    return c.json(result.value, 201)
  })

  app.post('/:id/revoke', requireRole('admin'), async (c) => {
    const revoked = await plane.approvals.sops.revoke(c.req.param('id'), c.get('caller'), plane.now())
    if (!revoked) return errorResponse(c, 'not_found', `no active SOP "${c.req.param('id')}"`)
    return c.json({ id: c.req.param('id'), revoked: true })
  })
  return app
}
