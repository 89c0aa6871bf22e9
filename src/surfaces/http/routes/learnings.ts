import { Hono } from 'hono'
import type { Skillplane } from '../../../skillplane/index.js'
import type { HttpEnv } from '../http-env.js'
import { errorResponse } from '../error-response.js'
import { describeZod } from '../describe-zod.js'
import { parseInput } from '../parse-input.js'
import { learningListQuery } from '../request-schemas.js'
import { requireRole } from '../middleware/require-role.js'

/** `/api/learnings` (admin): what skills learned, with their importance now; verify or disprove one. */
export function learningRoutes(plane: Skillplane): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>()
  app.use(requireRole('admin'))

  app.get('/', async (c) => {
    const query = parseInput(learningListQuery, c.req.query())
    if (!query.success) return errorResponse(c, 'invalid_input', `invalid learnings query: ${describeZod(query.error)}`)
    return c.json({ learnings: await plane.values.learnings.list(query.data) })
  })

  for (const action of ['verify', 'disprove'] as const) {
    app.post(`/:id/${action}`, async (c) => {
      const id = c.req.param('id')
      const judged = await plane.values.learnings[action](id, c.get('caller'))
      if (!judged) return errorResponse(c, 'not_found', `no learning ${id}`)
      return c.json(judged)
    })
  }
  return app
}
