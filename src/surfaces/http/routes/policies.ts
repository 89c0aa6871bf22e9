import { Hono } from 'hono'
import type { Skillplane } from '../../../skillplane/index.js'
import type { HttpEnv } from '../http-env.js'
import { errorResponse } from '../error-response.js'
import { parseBody } from '../parse-body.js'
import { policyBody } from '../request-schemas.js'
import { requireRole } from '../middleware/require-role.js'

export function policyRoutes(plane: Skillplane): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>()
  app.use(requireRole('admin'))

  app.get('/', (c) => c.json({ policies: plane.policies.list() }))

  app.put('/', async (c) => {
    const body = await parseBody(c, policyBody, 'invalid policy')
    if (!body.ok) return body.response
    const result = await plane.policies.set(body.value, c.get('caller'), plane.now())
    if (!result.ok) return errorResponse(c, 'invalid_input', result.message)
    return c.json(result.policy)
  })

  app.delete('/:id', async (c) => {
    const cleared = await plane.policies.clear(c.req.param('id'), c.get('caller'))
    if (!cleared) return errorResponse(c, 'not_found', `no policy "${c.req.param('id')}"`)
    return c.json(cleared)
  })
  return app
}
