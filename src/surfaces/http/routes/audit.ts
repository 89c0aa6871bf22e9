import { Hono } from 'hono'
import type { Skillplane } from '../../../skillplane/index.js'
import { auditHistogramSchema, parseAuditQuery } from '../../../audit/index.js'
import type { HttpEnv } from '../http-env.js'
import { errorResponse } from '../error-response.js'
import { eventsQuery } from '../request-schemas.js'
import { describeZod } from '../describe-zod.js'
import { parseInput } from '../parse-input.js'
import { requireRole } from '../middleware/require-role.js'

export function auditRoutes(plane: Skillplane): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>()
  app.use(requireRole('operator'))

  app.get('/', async (c) => {
    const parsed = parseAuditQuery(c.req.query())
    if (!parsed.ok) return errorResponse(c, 'invalid_input', `invalid audit query: ${parsed.message}`)
    const query = parsed.query
    if (query.agent) query.agent = plane.agents.resolve(query.agent) ?? query.agent
    const page = await plane.audit.query(query)
    return c.json(page)
  })

  app.get('/histogram', async (c) => {
    const parsed = parseInput(auditHistogramSchema, c.req.query())
    if (!parsed.success) return errorResponse(c, 'invalid_input', `invalid audit histogram query: ${describeZod(parsed.error)}`)
    const query = parsed.data
    if (query.agent) query.agent = plane.agents.resolve(query.agent) ?? query.agent
    const result = await plane.audit.histogram(query)
    return result.ok ? c.json(result.histogram) : errorResponse(c, 'invalid_input', `invalid audit histogram query: ${result.message}`)
  })

  app.get('/events', async (c) => {
    const query = parseInput(eventsQuery, c.req.query())
    if (!query.success) return errorResponse(c, 'invalid_input', describeZod(query.error))
    return c.json(await plane.audit.events.list(query.data))
  })

  app.post('/sweep', requireRole('admin'), async (c) => {
    const caller = c.get('caller')
    return c.json(await plane.audit.sweep({ id: caller.id, name: caller.name }))
  })

  app.get('/:callId', async (c) => {
    const row = await plane.audit.get(c.req.param('callId'))
    if (!row) return errorResponse(c, 'not_found', `no call with id "${c.req.param('callId')}"`)
    return c.json(row)
  })

  return app
}
