import { Hono, type Context } from 'hono'
import type { Skillplane } from '../../../skillplane/index.js'
import { maySeeAgent, runAccessRefusal } from '../../../access/index.js'
import { RunError, createModel, TEST_RUN_KEY } from '../../../agents/index.js'
import type { HttpEnv } from '../http-env.js'
import { errorResponse } from '../error-response.js'
import { parseBody } from '../parse-body.js'
import { runListQuery, runStartBody, testRunBody } from '../request-schemas.js'
import { describeZod } from '../describe-zod.js'

const viewerRefused = (c: Context<HttpEnv>, doing: string): Response | undefined => {
  const reason = runAccessRefusal(c.get('caller'), doing)
  return reason === null ? undefined : errorResponse(c, 'denied', reason)
}

function runFailure(c: Context<HttpEnv>, error: unknown): Response {
  if (error instanceof RunError) return errorResponse(c, error.code, error.message)
  throw error
}

/** Agent runs under /api/agents/:id/runs and /api/agents/:id/test-runs. */
export function agentRunRoutes(plane: Skillplane): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>()
  const resolve = (c: Context<HttpEnv>) => plane.catalog.resolveAgent(c.req.param('id') ?? '')

  app.post('/:id/runs', async (c) => {
    const agentId = resolve(c)
    if (!agentId || !maySeeAgent(c.get('caller'), agentId)) return errorResponse(c, 'not_found', `no agent "${c.req.param('id')}"`)
    const refused = viewerRefused(c, 'running an agent')
    if (refused) return refused
    const body = await parseBody(c, runStartBody, 'invalid run')
    if (!body.ok) return body.response
    try {
      return c.json(await plane.runs.start({ agent: agentId, prompt: body.value.prompt, requester: c.get('caller') }), 201)
    } catch (error) {
      return runFailure(c, error)
    }
  })

  app.get('/:id/runs', async (c) => {
    const agentId = resolve(c)
    if (!agentId || !maySeeAgent(c.get('caller'), agentId)) return errorResponse(c, 'not_found', `no agent "${c.req.param('id')}"`)
    const refused = viewerRefused(c, 'reading runs')
    if (refused) return refused
    const parsed = runListQuery.safeParse(c.req.query())
    if (!parsed.success) return errorResponse(c, 'invalid_input', `invalid runs query: ${describeZod(parsed.error)}`)
    return c.json(await plane.runs.list({ agent: agentId, ...parsed.data }))
  })

  app.post('/:id/test-runs', async (c) => {
    const agentId = resolve(c)
    if (!agentId || !maySeeAgent(c.get('caller'), agentId)) return errorResponse(c, 'not_found', `no agent "${c.req.param('id')}"`)
    const refused = viewerRefused(c, 'test-running an agent')
    if (refused) return refused
    const body = await parseBody(c, testRunBody, 'invalid test run')
    if (!body.ok) return body.response
    try {
      // A clear error for a refused change or an agent without a usable model, before anything is audited.
      createModel(plane.runs.agent(agentId, body.value.set))
    } catch (error) {
      return runFailure(c, error)
    }
    // Through the test_run skill: gated, audited and policy-bound like any other call.
    const envelope = await plane.invoke(TEST_RUN_KEY, { agent: agentId, ...body.value }, { caller: c.get('caller') })
    if (envelope.ok) return c.json(envelope.data)
    return errorResponse(c, envelope.error.code, envelope.error.message)
  })
  return app
}

/** One run with its steps: GET /api/runs/:id. */
export function runRoutes(plane: Skillplane): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>()
  app.get('/:id', async (c) => {
    const refused = viewerRefused(c, 'reading runs')
    if (refused) return refused
    const run = await plane.runs.get(c.req.param('id'))
    if (!run || !maySeeAgent(c.get('caller'), run.agent)) return errorResponse(c, 'not_found', `no run "${c.req.param('id')}"`)
    return c.json(run)
  })
  return app
}
