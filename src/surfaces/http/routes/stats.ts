import { OpenAPIHono, createRoute } from '@hono/zod-openapi'
import type { Skillplane } from '../../../agents/index.js'
import { statsQuerySchema, statsSeriesDimSchema, statsSeriesQuerySchema } from '../../../audit/index.js'
import type { HttpEnv } from '../http-env.js'
import { failures, params, query, returns, serve } from '../openapi/declare.js'
import { StatsSeries, StatsTable } from '../openapi/response-schemas.js'
import { errorResponse } from '../error-response.js'
import { describeZod } from '../describe-zod.js'
import { parseInput } from '../parse-input.js'
import { requireAbility } from '../middleware/require-ability.js'

/** Every skill's (agent's, edge's, caller's) health: who may read the audit may read its rollup. */
export function statsRoutes(plane: Skillplane): OpenAPIHono<HttpEnv> {
  const app = new OpenAPIHono<HttpEnv>()
  app.use(requireAbility('readAudit'))

  const table = createRoute({
    method: 'get',
    path: '/',
    summary: 'Calls, error and refusal rates, p50/p95/p99 duration and approval waits per skill, agent, edge or caller over a window',
    ...query(statsQuerySchema),
    responses: { 200: returns(StatsTable, '{ dim, window, from, to, items: StatsRow[] }'), ...failures(400, 401, 403) },
  })
  serve(app, table, async (c) => {
    const parsed = parseInput(statsQuerySchema, c.req.query())
    if (!parsed.success) return errorResponse(c, 'invalid_input', `invalid stats query: ${describeZod(parsed.error)}`)
    return c.json(await plane.audit.health.table(parsed.data))
  })

  const series = createRoute({
    method: 'get',
    path: '/{dim}/{value}/series',
    summary: "One skill's (agent's, edge's, caller's; 'all' with any value: the whole plane's) figures per minute, hour or day of a window, for charts",
    request: { ...params('/{dim}/{value}/series') },
    ...query(statsSeriesQuerySchema),
    responses: { 200: returns(StatsSeries, '{ dim, value, window, points }'), ...failures(400, 401, 403) },
  })
  serve(app, series, async (c) => {
    const dim = statsSeriesDimSchema.safeParse(c.req.param('dim'))
    if (!dim.success) return errorResponse(c, 'invalid_input', `invalid stats series: dim: ${dim.error.issues[0]!.message}`)
    const parsed = parseInput(statsSeriesQuerySchema, c.req.query())
    if (!parsed.success) return errorResponse(c, 'invalid_input', `invalid stats series query: ${describeZod(parsed.error)}`)
    const raw = c.req.param('value')
    // An agent is named by id, name or alias, as everywhere else; the whole plane's stats have one value.
    const value = dim.data === 'all' ? '' : dim.data === 'agent' ? (plane.agents.resolve(raw) ?? raw) : raw
    return c.json({ ...(await plane.audit.health.series({ dim: dim.data, value, window: parsed.data.window })), value: raw })
  })

  return app
}
