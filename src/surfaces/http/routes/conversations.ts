import { OpenAPIHono, createRoute } from '@hono/zod-openapi'
import type { Skillplane } from '../../../agents/index.js'
import { runAccessRefusal } from '../../../access/index.js'
import { maySeeAgent } from '../../../abilities/index.js'
import type { HttpEnv } from '../http-env.js'
import { failures, params, returns, serve } from '../openapi/declare.js'
import { Conversation } from '../openapi/response-schemas.js'
import { errorResponse } from '../error-response.js'
import { requireAbility } from '../middleware/require-ability.js'

// A conversation is read whole; these bound one that grew without end.
const MAX_CALLS = 2_000
const MAX_APPROVALS = 500

/** GET /api/conversations/:id: every call of one conversation in order, its approval requests, and its run. */
export function conversationRoutes(plane: Skillplane): OpenAPIHono<HttpEnv> {
  const app = new OpenAPIHono<HttpEnv>()
  const show = createRoute({
    method: 'get',
    path: '/{id}',
    summary: "A conversation's calls (oldest first), approval requests and agent run (operator or admin)",
    middleware: [requireAbility('readAudit')] as const,
    request: { ...params('/{id}') },
    responses: { 200: returns(Conversation, '{ id, calls, approvals, run, truncated }'), ...failures(401, 403, 404) },
  })
  serve(app, show, async (c) => {
    const id = c.req.param('id')
    const caller = c.get('caller')
    const [calls, approvals] = await Promise.all([
      plane.audit.query({ conversationId: id, oldestFirst: true, limit: MAX_CALLS }),
      plane.approvals.ofConversation(id, MAX_APPROVALS + 1),
    ])
    // An agent run's tool calls are the conversation run:<id> (test-run:<id> for a test run).
    const [, test, runId] = /^(test-)?run:(.+)$/.exec(id) ?? []
    let run = runId && runAccessRefusal(caller, 'reading runs') === null ? await plane.runs.get(runId) : undefined
    if (run && (!maySeeAgent(caller, run.agent) || run.test !== (test !== undefined))) run = undefined
    if (calls.items.length === 0 && approvals.length === 0 && !run) return errorResponse(c, 'not_found', `no conversation "${id}"`)
    const truncated = calls.nextCursor !== null || approvals.length > MAX_APPROVALS
    return c.json({ id, calls: calls.items, approvals: approvals.slice(0, MAX_APPROVALS), run: run ?? null, truncated })
  })
  return app
}
