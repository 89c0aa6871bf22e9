import { Hono } from 'hono'
import type { Skillplane } from '../../../skillplane/index.js'
import type { ApprovalView } from '../../../policy/index.js'
import { approvalListQuery, approveBody, decisionBody, grantListQuery, sopCheckQuery } from '../request-schemas.js'
import type { Caller } from '../../../skill/index.js'
import type { HttpEnv } from '../http-env.js'
import { errorResponse } from '../error-response.js'
import { parseBody } from '../parse-body.js'
import { describeZod } from '../describe-zod.js'
import { parseInput } from '../parse-input.js'
import { requireRole } from '../middleware/require-role.js'

/** Approvers (operator, admin) see every request; anyone else only their own. */
export const mayViewApproval = (caller: Caller, approval: ApprovalView) =>
  (caller.kind === 'user' && caller.role !== 'viewer') || approval.requester.id === caller.id

export function approvalRoutes(plane: Skillplane): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>()

  app.get('/', async (c) => {
    const parsed = parseInput(approvalListQuery, c.req.query())
    if (!parsed.success) return errorResponse(c, 'invalid_input', `invalid approvals query: ${describeZod(parsed.error)}`)
    const caller = c.get('caller')
    const approver = caller.kind === 'user' && caller.role !== 'viewer'
    const { decided, ...filters } = parsed.data
    const query = {
      ...filters,
      ...(decided && { decided: decided === 'true' }),
      agent: parsed.data.agent && (plane.agents.resolve(parsed.data.agent) ?? parsed.data.agent),
      ...(!approver && { requester: caller.id }),
    }
    return c.json(await plane.approvals.list(query))
  })

  // Before /:id, which would take "grants" for a request id.
  app.get('/grants', requireRole('operator'), async (c) => {
    const parsed = parseInput(grantListQuery, c.req.query())
    if (!parsed.success) return errorResponse(c, 'invalid_input', `invalid grants query: ${describeZod(parsed.error)}`)
    const agent = parsed.data.agent && (plane.agents.resolve(parsed.data.agent) ?? parsed.data.agent)
    return c.json(await plane.approvals.grants.list({ ...parsed.data, agent }))
  })

  app.delete('/grants/:id', requireRole('operator'), async (c) => {
    const result = await plane.approvals.grants.revoke(c.req.param('id'), c.get('caller'))
    if (!result.ok) return errorResponse(c, result.code, result.message)
    return c.json(result.grant)
  })

  app.get('/:id', async (c) => {
    const approval = await plane.approvals.get(c.req.param('id'))
    if (!approval || !mayViewApproval(c.get('caller'), approval)) return errorResponse(c, 'not_found', `no approval request "${c.req.param('id')}"`)
    const history = await plane.audit.events.list({ subject: `approval:${approval.id}`, limit: 100 })
    return c.json({ ...approval, history: history.items.reverse() })
  })

  // Approvers check a signed procedure against a request before they cite it.
  app.get('/:id/sop-check', requireRole('operator'), async (c) => {
    const parsed = parseInput(sopCheckQuery, c.req.query())
    if (!parsed.success) return errorResponse(c, 'invalid_input', `invalid SOP check: ${describeZod(parsed.error)}`)
    const checked = await plane.approvals.checkSop(c.req.param('id'), parsed.data.sopId)
    if (!checked) return errorResponse(c, 'not_found', `no approval request "${c.req.param('id')}"`)
    return c.json(checked)
  })

  app.post('/:id/approve', async (c) => {
    const body = await parseBody(c, approveBody)
    if (!body.ok) return body.response
    const result = await plane.approvals.decide({ id: c.req.param('id'), caller: c.get('caller'), decision: 'approve', ...body.value })
    if (!result.ok) return errorResponse(c, result.code, result.message)
    // What a wider scope left: the conversation grant, or the ALWAYS override.
    const granted = result.granted && (result.granted.scope === 'always' ? { policy: result.granted.policy } : { grant: result.granted.grant })
    return c.json({ ...result.approval, ...granted, ...(result.grantProblem && { grantProblem: result.grantProblem }) })
  })

  app.post('/:id/reject', async (c) => {
    const body = await parseBody(c, decisionBody, 'invalid request body', 'a rejection is for this request only: scope and minutes apply to approve')
    if (!body.ok) return body.response
    const result = await plane.approvals.decide({ id: c.req.param('id'), caller: c.get('caller'), decision: 'reject', ...body.value })
    if (!result.ok) return errorResponse(c, result.code, result.message)
    return c.json(result.approval)
  })

  return app
}
