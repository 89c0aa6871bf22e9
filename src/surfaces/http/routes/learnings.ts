import { OpenAPIHono, createRoute } from '@hono/zod-openapi'
import type { Skillplane } from '../../../agents/index.js'
import type { HttpEnv } from '../http-env.js'
import { failures, params, query, returns, serve } from '../openapi/declare.js'
import { Learning, LearningList } from '../openapi/response-schemas.js'
import { errorResponse } from '../error-response.js'
import { describeZod } from '../describe-zod.js'
import { parseInput } from '../parse-input.js'
import { learningListQuery } from '../request-schemas.js'
import { requireAbility } from '../middleware/require-ability.js'

/** `/api/learnings` (admin): what skills learned, with their importance now; verify or disprove one. */
export function learningRoutes(plane: Skillplane): OpenAPIHono<HttpEnv> {
  const app = new OpenAPIHono<HttpEnv>()
  app.use(requireAbility('manageLearnings'))

  const list = createRoute({
    method: 'get',
    path: '/',
    summary: 'What skills learned, with their importance now (admin)',
    ...query(learningListQuery),
    responses: { 200: returns(LearningList, '{ learnings }'), ...failures(400, 401, 403) },
  })
  serve(app, list, async (c) => {
    const query = parseInput(learningListQuery, c.req.query())
    if (!query.success) return errorResponse(c, 'invalid_input', `invalid learnings query: ${describeZod(query.error)}`)
    return c.json({ learnings: await plane.values.learnings.list(query.data) })
  })

  for (const action of ['verify', 'disprove'] as const) {
    const judge = createRoute({
      method: 'post',
      path: `/{id}/${action}`,
      summary: action === 'verify' ? 'Mark a learning verified: it keeps its importance (admin)' : 'Mark a learning disproved: it is deprecated (admin)',
      request: params('/{id}'),
      responses: { 200: returns(Learning, 'The learning as changed'), ...failures(401, 403, 404) },
    })
    serve(app, judge, async (c) => {
      const id = c.req.param('id')
      const judged = await plane.values.learnings[action](id, c.get('caller'))
      if (!judged) return errorResponse(c, 'not_found', `no learning ${id}`)
      return c.json(judged)
    })
  }
  return app
}
