import { OpenAPIHono, createRoute } from '@hono/zod-openapi'
import type { Skillplane } from '../../../agents/index.js'
import { auditHistogramSchema, auditQuerySchema, parseAuditQuery } from '../../../audit/index.js'
import type { HttpEnv } from '../http-env.js'
import { failures, params, query, returns, serve } from '../openapi/declare.js'
import { AuditEntry, AuditPage, CallTree, EventPage, Histogram, SweepReport } from '../openapi/response-schemas.js'
import { treeSpanAccess } from '../../../access/index.js'
import { hideSpans } from '../../../audit/index.js'
import { runsOfTree } from './runs-of-tree.js'
import { errorResponse } from '../error-response.js'
import { eventsQuery } from '../request-schemas.js'
import { describeZod } from '../describe-zod.js'
import { parseInput } from '../parse-input.js'
import { requireAbility } from '../middleware/require-ability.js'

export function auditRoutes(plane: Skillplane): OpenAPIHono<HttpEnv> {
  const app = new OpenAPIHono<HttpEnv>()
  app.use(requireAbility('readAudit'))

  const list = createRoute({
    method: 'get',
    path: '/',
    summary: 'Audit rows, newest first (operator or admin)',
    ...query(auditQuerySchema),
    responses: { 200: returns(AuditPage, 'A page of audit entries'), ...failures(400, 401, 403) },
  })
  serve(app, list, async (c) => {
    const parsed = parseAuditQuery(c.req.query())
    if (!parsed.ok) return errorResponse(c, 'invalid_input', `invalid audit query: ${parsed.message}`)
    const query = parsed.query
    if (query.agent) query.agent = plane.agents.resolve(query.agent) ?? query.agent
    const page = await plane.audit.query(query)
    return c.json(page)
  })

  const histogram = createRoute({
    method: 'get',
    path: '/histogram',
    summary: 'Calls and failures per minute, hour or day, with the audit filters (the last day by default)',
    ...query(auditHistogramSchema),
    responses: { 200: returns(Histogram, '{ bucket, from, to, points: [{ at, calls, failed }] }'), ...failures(400, 401, 403) },
  })
  serve(app, histogram, async (c) => {
    const parsed = parseInput(auditHistogramSchema, c.req.query())
    if (!parsed.success) return errorResponse(c, 'invalid_input', `invalid audit histogram query: ${describeZod(parsed.error)}`)
    const query = parsed.data
    if (query.agent) query.agent = plane.agents.resolve(query.agent) ?? query.agent
    const result = await plane.audit.histogram(query)
    return result.ok ? c.json(result.histogram) : errorResponse(c, 'invalid_input', `invalid audit histogram query: ${result.message}`)
  })

  const events = createRoute({
    method: 'get',
    path: '/events',
    summary: 'Audit events (approvals, keys, policies, edges, …), newest first',
    ...query(eventsQuery),
    responses: { 200: returns(EventPage, 'A page of events'), ...failures(400, 401, 403) },
  })
  serve(app, events, async (c) => {
    const query = parseInput(eventsQuery, c.req.query())
    if (!query.success) return errorResponse(c, 'invalid_input', describeZod(query.error))
    return c.json(await plane.audit.events.list(query.data))
  })

  const sweep = createRoute({
    method: 'post',
    path: '/sweep',
    summary: 'Run the retention sweep now (admin)',
    middleware: [requireAbility('sweepAudit')] as const,
    responses: { 200: returns(SweepReport, 'The sweep report'), ...failures(401, 403) },
  })
  serve(app, sweep, async (c) => {
    const caller = c.get('caller')
    return c.json(await plane.audit.sweep({ id: caller.id, name: caller.name }))
  })

  const entry = createRoute({
    method: 'get',
    path: '/{callId}',
    summary: 'One audit row',
    request: { ...params('/{callId}') },
    responses: { 200: returns(AuditEntry, 'Entry'), ...failures(401, 403, 404) },
  })
  serve(app, entry, async (c) => {
    const row = await plane.audit.get(c.req.param('callId'))
    if (!row) return errorResponse(c, 'not_found', `no call with id "${c.req.param('callId')}"`)
    return c.json(row)
  })

  const tree = createRoute({
    method: 'get',
    path: '/{callId}/tree',
    summary: "The call's tree, from its root: the calls it made and that made it, its agent run, approval waits, relays and remote calls",
    request: { ...params('/{callId}/tree') },
    responses: { 200: returns(CallTree, '{ rootId, startedAt, endedAt, spans, truncated }'), ...failures(401, 403, 404) },
  })
  serve(app, tree, async (c) => {
    const found = await plane.audit.tree({ callId: c.req.param('callId') })
    if (!found) return errorResponse(c, 'not_found', `no call with id "${c.req.param('callId')}"`)
    return c.json(hideSpans(found, treeSpanAccess(c.get('caller'), runsOfTree(found))))
  })

  return app
}
