import { Hono } from 'hono'
import type { Skillplane } from '../../../skillplane/index.js'
import type { ApprovalView } from '../../../policy/index.js'
import { approvalListQuery, decisionBody } from '../request-schemas.js'
import type { Caller } from '../../../skill/index.js'
import type { HttpEnv } from '../http-env.js'
import { errorResponse } from '../error-response.js'
import { parseBody } from '../parse-body.js'
import { describeZod } from '../describe-zod.js'

/** Approvers (operator, admin) see every request; anyone else only their own. */
export const mayViewApproval = (caller: Caller, approval: ApprovalView) =>
  (caller.kind === 'user' && caller.role !== 'viewer') || approval.requester.id === caller.id

export function approvalRoutes(plane: Skillplane): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>()

  app.get('/', async (c) => {
    const parsed = approvalListQuery.safeParse(c.req.query())
    if (!parsed.success) return errorResponse(c, 'invalid_input', `invalid approvals query: ${describeZod(parsed.error)}`)
    const caller = c.get('caller')
    const approver = caller.kind === 'user' && caller.role !== 'viewer'
    const query = {
      ...parsed.data,
      agent: parsed.data.agent && (plane.catalog.resolveAgent(parsed.data.agent) ?? parsed.data.agent),
      ...(!approver && { requester: caller.id }),
    }
    return c.json(await plane.approvals.list(query))
  })

  app.get('/:id', async (c) => {
    const approval = await plane.approvals.get(c.req.param('id'))
    if (!approval || !mayViewApproval(c.get('caller'), approval)) return errorResponse(c, 'not_found', `no approval request "${c.req.param('id')}"`)
    const history = await plane.events.list({ subject: `approval:${approval.id}`, limit: 100 })
    return c.json({ ...approval, history: history.items.reverse() })
  })

  for (const decision of ['approve', 'reject'] as const) {
    app.post(`/:id/${decision}`, async (c) => {
      const body = await parseBody(c, decisionBody)
      if (!body.ok) return body.response
      const result = await plane.approvals.decide({ id: c.req.param('id'), caller: c.get('caller'), decision, ...body.value })
      if (!result.ok) return errorResponse(c, result.code, result.message)
      return c.json(result.approval)
    })
  }

  return app
}
