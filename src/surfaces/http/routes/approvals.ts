import { OpenAPIHono, createRoute } from '@hono/zod-openapi'
import type { Skillplane } from '../../../agents/index.js'
import { approvalListQuery, approveBody, decisionBody, grantListQuery, sopCheckQuery } from '../request-schemas.js'
import type { HttpEnv } from '../http-env.js'
import { body, failures, params, query, returns, serve } from '../openapi/declare.js'
import { Approval, ApprovalPage, ApprovalWithHistory, Decided, Grant, GrantPage, SopCheck } from '../openapi/response-schemas.js'
import { errorResponse } from '../error-response.js'
import { parseBody } from '../parse-body.js'
import { describeZod } from '../describe-zod.js'
import { parseInput } from '../parse-input.js'
import { requireAbility } from '../middleware/require-ability.js'
import { can, mayViewApproval } from '../../../abilities/index.js'

export function approvalRoutes(plane: Skillplane): OpenAPIHono<HttpEnv> {
  const app = new OpenAPIHono<HttpEnv>()

  const list = createRoute({
    method: 'get',
    path: '/',
    summary: 'Approval requests: approvers see all, others their own',
    ...query(approvalListQuery),
    responses: { 200: returns(ApprovalPage, 'A page of requests'), ...failures(400, 401) },
  })
  serve(app, list, async (c) => {
    const parsed = parseInput(approvalListQuery, c.req.query())
    if (!parsed.success) return errorResponse(c, 'invalid_input', `invalid approvals query: ${describeZod(parsed.error)}`)
    const caller = c.get('caller')
    const approver = can(caller, 'viewApprovals')
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
  const grants = createRoute({
    method: 'get',
    path: '/grants',
    summary: 'Conversation grants left by approvals (operator or admin)',
    middleware: [requireAbility('manageGrants')] as const,
    ...query(grantListQuery),
    responses: { 200: returns(GrantPage, '{ items: [grant], nextCursor }'), ...failures(400, 401, 403) },
  })
  serve(app, grants, async (c) => {
    const parsed = parseInput(grantListQuery, c.req.query())
    if (!parsed.success) return errorResponse(c, 'invalid_input', `invalid grants query: ${describeZod(parsed.error)}`)
    const agent = parsed.data.agent && (plane.agents.resolve(parsed.data.agent) ?? parsed.data.agent)
    return c.json(await plane.approvals.grants.list({ ...parsed.data, agent }))
  })

  const revokeGrant = createRoute({
    method: 'delete',
    path: '/grants/{id}',
    summary: 'Revoke a conversation grant (operator or admin)',
    middleware: [requireAbility('manageGrants')] as const,
    request: { ...params('/grants/{id}') },
    responses: { 200: returns(Grant, 'The grant, revoked'), ...failures(401, 403, 404, 409) },
  })
  serve(app, revokeGrant, async (c) => {
    const result = await plane.approvals.grants.revoke(c.req.param('id'), c.get('caller'))
    if (!result.ok) return errorResponse(c, result.code, result.message)
    return c.json(result.grant)
  })

  const show = createRoute({
    method: 'get',
    path: '/{id}',
    summary: 'One approval request with its history',
    request: { ...params('/{id}') },
    responses: { 200: returns(ApprovalWithHistory, 'Request'), ...failures(401, 404) },
  })
  serve(app, show, async (c) => {
    const approval = await plane.approvals.get(c.req.param('id'))
    if (!approval || !mayViewApproval(c.get('caller'), approval)) return errorResponse(c, 'not_found', `no approval request "${c.req.param('id')}"`)
    const history = await plane.audit.events.list({ subject: `approval:${approval.id}`, limit: 100 })
    return c.json({ ...approval, history: history.items.reverse() })
  })

  // Approvers check a signed procedure against a request before they cite it.
  const sopCheck = createRoute({
    method: 'get',
    path: '/{id}/sop-check',
    summary: 'Check a signed procedure against a request before citing it (operator or admin)',
    middleware: [requireAbility('viewApprovals')] as const,
    ...query(sopCheckQuery),
    request: { ...params('/{id}/sop-check') },
    responses: { 200: returns(SopCheck, '{ ok: true, sop: { id, hash } } or { ok: false, message }'), ...failures(400, 401, 403, 404) },
  })
  serve(app, sopCheck, async (c) => {
    const parsed = parseInput(sopCheckQuery, c.req.query())
    if (!parsed.success) return errorResponse(c, 'invalid_input', `invalid SOP check: ${describeZod(parsed.error)}`)
    const checked = await plane.approvals.checkSop(c.req.param('id'), parsed.data.sopId)
    if (!checked) return errorResponse(c, 'not_found', `no approval request "${c.req.param('id')}"`)
    return c.json(checked)
  })

  const approve = createRoute({
    method: 'post',
    path: '/{id}/approve',
    summary: 'Approve a request (approvers)',
    request: { ...params('/{id}/approve'), ...body(approveBody) },
    responses: {
      200: returns(Decided, 'The request after the decision; with scope conversation also `grant`, with always also `policy`'),
      ...failures(400, 401, 403, 404, 409, 410),
    },
  })
  serve(app, approve, async (c) => {
    const body = await parseBody(c, approveBody)
    if (!body.ok) return body.response
    const result = await plane.approvals.decide({ id: c.req.param('id'), caller: c.get('caller'), decision: 'approve', ...body.value })
    if (!result.ok) return errorResponse(c, result.code, result.message)
    // What a wider scope left: the conversation grant, or the ALWAYS override.
    const granted = result.granted && (result.granted.scope === 'always' ? { policy: result.granted.policy } : { grant: result.granted.grant })
    return c.json({ ...result.approval, ...granted, ...(result.grantProblem && { grantProblem: result.grantProblem }) })
  })

  const reject = createRoute({
    method: 'post',
    path: '/{id}/reject',
    summary: 'Reject a request (approvers)',
    request: { ...params('/{id}/reject'), ...body(decisionBody) },
    responses: { 200: returns(Approval, 'The request after the decision'), ...failures(400, 401, 403, 404, 409, 410) },
  })
  serve(app, reject, async (c) => {
    const body = await parseBody(c, decisionBody, 'invalid request body', 'a rejection is for this request only: scope and minutes apply to approve')
    if (!body.ok) return body.response
    const result = await plane.approvals.decide({ id: c.req.param('id'), caller: c.get('caller'), decision: 'reject', ...body.value })
    if (!result.ok) return errorResponse(c, result.code, result.message)
    return c.json(result.approval)
  })

  return app
}
