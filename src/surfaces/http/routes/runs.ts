import type { Context } from 'hono'
import { OpenAPIHono, createRoute } from '@hono/zod-openapi'
import { streamSSE } from 'hono/streaming'
import type { Skillplane } from '../../../agents/index.js'
import { runAccessRefusal, treeSpanAccess } from '../../../access/index.js'
import { hideSpans } from '../../../audit/index.js'
import { runsOfTree } from './runs-of-tree.js'
import { maySeeAgent } from '../../../abilities/index.js'
import { createModel, RunInputError, TEST_RUN_KEY } from '../../../agents/index.js'
import type { HttpEnv } from '../http-env.js'
import { body, failures, params, query, returns, serve } from '../openapi/declare.js'
import { CallTree, ModelRequest, Run, RunInput, RunPage, TestRunResult } from '../openapi/response-schemas.js'
import { errorResponse } from '../error-response.js'
import { parseBody } from '../parse-body.js'
import { runInputAnswerBody, runListQuery, runStartBody, testRunBody } from '../request-schemas.js'
import { describeZod } from '../describe-zod.js'
import { parseInput } from '../parse-input.js'
import { SSE_KEEP_ALIVE_MS } from '../sse-keep-alive.js'

const viewerRefused = (c: Context<HttpEnv>, doing: string): Response | undefined => {
  const reason = runAccessRefusal(c.get('caller'), doing)
  return reason === null ? undefined : errorResponse(c, 'denied', reason)
}

/** Agent runs under /api/agents/:id/runs and /api/agents/:id/test-runs. */
export function agentRunRoutes(plane: Skillplane): OpenAPIHono<HttpEnv> {
  const app = new OpenAPIHono<HttpEnv>()
  const resolve = (c: Context<HttpEnv>) => plane.agents.resolve(c.req.param('id') ?? '')

  const start = createRoute({
    method: 'post',
    path: '/{id}/runs',
    summary: 'Run the agent on a prompt (operator or admin; an agent key for itself)',
    request: { ...params('/{id}/runs'), ...body(runStartBody) },
    responses: {
      201: returns(Run, 'The run with its steps'),
      202: returns(Run, 'The run as started, for `wait: false`'),
      ...failures(400, 401, 403, 404, 409, 502, 503),
    },
  })
  serve(app, start, async (c) => {
    const agentId = resolve(c)
    if (!agentId || !maySeeAgent(c.get('caller'), agentId)) return errorResponse(c, 'not_found', `no agent "${c.req.param('id')}"`)
    const refused = viewerRefused(c, 'running an agent')
    if (refused) return refused
    const body = await parseBody(c, runStartBody, 'invalid run')
    if (!body.ok) return body.response
    const run = await plane.runs.start({ agent: agentId, prompt: body.value.prompt, requester: c.get('caller'), wait: body.value.wait })
    return c.json(run, body.value.wait === false ? 202 : 201)
  })

  const list = createRoute({
    method: 'get',
    path: '/{id}/runs',
    summary: "The agent's runs, newest first",
    ...query(runListQuery),
    request: { ...params('/{id}/runs') },
    responses: { 200: returns(RunPage, '{ items, nextCursor }'), ...failures(400, 401, 403, 404) },
  })
  serve(app, list, async (c) => {
    const agentId = resolve(c)
    if (!agentId || !maySeeAgent(c.get('caller'), agentId)) return errorResponse(c, 'not_found', `no agent "${c.req.param('id')}"`)
    const refused = viewerRefused(c, 'reading runs')
    if (refused) return refused
    const parsed = parseInput(runListQuery, c.req.query())
    if (!parsed.success) return errorResponse(c, 'invalid_input', `invalid runs query: ${describeZod(parsed.error)}`)
    return c.json(await plane.runs.list({ agent: agentId, ...parsed.data }))
  })

  const testRun = createRoute({
    method: 'post',
    path: '/{id}/test-runs',
    summary: 'Test the agent: a run with config changes for this run only, judged (the test_run skill)',
    request: { ...params('/{id}/test-runs'), ...body(testRunBody) },
    responses: { 200: returns(TestRunResult, '{ output, tools, approvals, verdict, reason, runId }'), ...failures(202, 400, 401, 403, 404, 502, 503) },
  })
  serve(app, testRun, async (c) => {
    const agentId = resolve(c)
    if (!agentId || !maySeeAgent(c.get('caller'), agentId)) return errorResponse(c, 'not_found', `no agent "${c.req.param('id')}"`)
    const refused = viewerRefused(c, 'test-running an agent')
    if (refused) return refused
    const body = await parseBody(c, testRunBody, 'invalid test run')
    if (!body.ok) return body.response
    // A clear error (a RunError) for a refused change or an agent without a usable model, before anything is audited.
    createModel(plane.runs.agent(agentId, body.value.set))
    // Through the test_run skill: gated, audited and policy-bound like any other call.
    const envelope = await plane.invoke(TEST_RUN_KEY, { agent: agentId, ...body.value }, { caller: c.get('caller') })
    if (envelope.ok) return c.json(envelope.data)
    return errorResponse(c, envelope.error.code, envelope.error.message)
  })
  return app
}

/**
 * One run with its steps: GET /api/runs/:id, its steps as they happen: GET /api/runs/:id/events,
 * and what the model was sent on one model step: GET /api/runs/:id/steps/:index/request.
 */
export function runRoutes(plane: Skillplane): OpenAPIHono<HttpEnv> {
  const app = new OpenAPIHono<HttpEnv>()
  const show = createRoute({
    method: 'get',
    path: '/{id}',
    summary: 'One run with its steps',
    request: { ...params('/{id}') },
    responses: { 200: returns(Run, 'Run'), ...failures(401, 403, 404) },
  })
  serve(app, show, async (c) => {
    const refused = viewerRefused(c, 'reading runs')
    if (refused) return refused
    const run = await plane.runs.get(c.req.param('id'))
    if (!run || !maySeeAgent(c.get('caller'), run.agent)) return errorResponse(c, 'not_found', `no run "${c.req.param('id')}"`)
    return c.json(run)
  })

  const tree = createRoute({
    method: 'get',
    path: '/{id}/tree',
    summary: "The run's call tree: its model steps, its tool calls and the calls they made, its approval waits",
    request: { ...params('/{id}/tree') },
    responses: { 200: returns(CallTree, '{ rootId, startedAt, endedAt, spans, truncated }'), ...failures(401, 403, 404) },
  })
  serve(app, tree, async (c) => {
    const refused = viewerRefused(c, 'reading runs')
    if (refused) return refused
    const id = c.req.param('id')
    const run = await plane.runs.get(id)
    const found = run && maySeeAgent(c.get('caller'), run.agent) ? await plane.audit.tree({ runId: id }) : undefined
    if (!run || !found) return errorResponse(c, 'not_found', `no run "${id}"`)
    return c.json(hideSpans(found, treeSpanAccess(c.get('caller'), runsOfTree(found, run))))
  })

  const events = createRoute({
    method: 'get',
    path: '/{id}/events',
    summary: "The run's steps as they happen",
    request: { ...params('/{id}/events') },
    responses: {
      200: {
        description:
          'An event stream: `step` events (`id` the write number to resume from, `data` the step JSON as GET /api/runs/{id} shows it), then one `end` event with the run',
        content: { 'text/event-stream': { schema: { type: 'string' } } },
      },
      ...failures(401, 403, 404),
    },
  })
  serve(app, events, async (c) => {
    const refused = viewerRefused(c, 'reading runs')
    if (refused) return refused
    const id = c.req.param('id')
    const run = await plane.runs.get(id)
    if (!run || !maySeeAgent(c.get('caller'), run.agent)) return errorResponse(c, 'not_found', `no run "${id}"`)
    // A reconnecting client says the last step write it saw; anything else starts from the beginning.
    const lastEventId = c.req.header('last-event-id') ?? ''
    const after = /^\d{1,15}$/.test(lastEventId) ? Number(lastEventId) : 0
    return streamSSE(c, async (stream) => {
      const gone = new AbortController()
      stream.onAbort(() => gone.abort())
      // A client gone before the listener was set is not told again.
      if (stream.aborted) gone.abort()
      // Headers go out now, so a client knows it is listening before the first step.
      await stream.write(': listening\n\n')
      const keepAlive = setInterval(() => void stream.write(': keep-alive\n\n'), SSE_KEEP_ALIVE_MS)
      try {
        for await (const event of plane.runs.follow(id, { after, signal: gone.signal })) {
          if (event.type === 'step') await stream.writeSSE({ id: String(event.rev), event: 'step', data: JSON.stringify(event.step) })
          else await stream.writeSSE({ event: 'end', data: JSON.stringify(event.run) })
        }
      } catch (error) {
        // The stream closes without its end event: the client reconnects with Last-Event-ID.
        plane.logger.warn({ err: error, run: id }, 'following a run failed')
      } finally {
        clearInterval(keepAlive)
      }
    })
  })
  const request = createRoute({
    method: 'get',
    path: '/{id}/steps/{index}/request',
    summary: 'What the model was sent on one model step of the run: system prompt, tools offered, messages (secrets redacted)',
    request: { ...params('/{id}/steps/{index}/request') },
    responses: { 200: returns(ModelRequest, 'ModelRequest'), ...failures(400, 401, 403, 404) },
  })
  serve(app, request, async (c) => {
    const refused = viewerRefused(c, 'reading runs')
    if (refused) return refused
    const id = c.req.param('id')
    const text = c.req.param('index')
    if (!/^\d{1,9}$/.test(text)) return errorResponse(c, 'invalid_input', `invalid step index "${text}": a step's index is a whole number from 0`)
    const index = Number(text)
    const found = await plane.runs.request(id, index)
    if (!found || !maySeeAgent(c.get('caller'), found.agent)) return errorResponse(c, 'not_found', `no run "${id}"`)
    if (!found.step) return errorResponse(c, 'not_found', `run "${id}" has no step ${index}`)
    if (!found.step.request) return errorResponse(c, 'not_found', `step ${index} of run "${id}" is a ${found.step.kind} step: only a model step has a request`)
    return c.json(found.step.request)
  })

  const answer = createRoute({
    method: 'post',
    path: '/{id}/inputs/{inputId}',
    summary:
      "Answer what a run's tool call asks a person for (an imported MCP server's elicitation): accept (with the form's content), decline or cancel. The person the run acts for or an approver (operator or higher); never an agent key",
    request: { ...params('/{id}/inputs/{inputId}'), ...body(runInputAnswerBody) },
    responses: {
      200: returns(RunInput, 'The request as decided'),
      ...failures(400, 401, 403, 404, 409),
    },
  })
  serve(app, answer, async (c) => {
    // A viewer neither starts runs nor decides approvals: never theirs to answer.
    const refused = viewerRefused(c, "answering a run's input request")
    if (refused) return refused
    const id = c.req.param('id')
    const run = await plane.runs.get(id)
    // An agent key sees its own agent's runs, and is refused below: the agent never answers its own questions.
    if (!run || !maySeeAgent(c.get('caller'), run.agent)) return errorResponse(c, 'not_found', `no run "${id}"`)
    const parsed = await parseBody(c, runInputAnswerBody, 'invalid answer')
    if (!parsed.ok) return parsed.response
    try {
      return c.json(await plane.runs.answerInput(id, c.req.param('inputId'), c.get('caller'), parsed.value), 200)
    } catch (error) {
      if (error instanceof RunInputError) return errorResponse(c, error.code, error.message, error.status && { status: error.status })
      throw error
    }
  })
  return app
}
