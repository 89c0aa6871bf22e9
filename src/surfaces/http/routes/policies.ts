import { OpenAPIHono, createRoute } from '@hono/zod-openapi'
import type { Skillplane } from '../../../agents/index.js'
import { canSee, effectivePolicy, policySubject, policySubjects, selfSubject, type PolicySubject } from '../../../access/index.js'
import { can } from '../../../abilities/index.js'
import type { HttpEnv } from '../http-env.js'
import { body, failures, params, query, returns, serve } from '../openapi/declare.js'
import { EffectivePolicy, Policy, PolicyList } from '../openapi/response-schemas.js'
import { errorResponse } from '../error-response.js'
import { parseBody } from '../parse-body.js'
import { describeZod } from '../describe-zod.js'
import { parseInput } from '../parse-input.js'
import { effectivePolicyQuery, policyBody } from '../request-schemas.js'
import { requireAbility } from '../middleware/require-ability.js'

export function policyRoutes(plane: Skillplane): OpenAPIHono<HttpEnv> {
  const app = new OpenAPIHono<HttpEnv>()

  const list = createRoute({
    method: 'get',
    path: '/',
    summary: 'Policies (admin)',
    middleware: [requireAbility('managePolicies')] as const,
    responses: { 200: returns(PolicyList, 'Policies'), ...failures(401, 403) },
  })
  serve(app, list, (c) => c.json({ policies: plane.policies.list() }))

  // Every key may ask about itself (the console's skill page); admins about anyone, as the policy matrix.
  const effective = createRoute({
    method: 'get',
    path: '/effective',
    summary: 'The policy in effect per skill and subject, with why (yourself; admins: anyone)',
    ...query(effectivePolicyQuery),
    responses: { 200: returns(EffectivePolicy, '{ subjects, skills: [{ key, class, scope, cells }], nextCursor }'), ...failures(400, 401, 403) },
  })
  serve(app, effective, async (c) => {
    const caller = c.get('caller')
    const query = parseInput(effectivePolicyQuery, c.req.query())
    if (!query.success) return errorResponse(c, 'invalid_input', `invalid effective-policy query: ${describeZod(query.error)}`)
    const { subject, skill, q, class: klass, edge: edgeRef, cursor, limit } = query.data
    const admin = can(caller, 'managePolicies')
    const ids = subject?.split(',').map((s) => s.trim())
    if (!admin && ids?.some((id) => id !== 'self'))
      return errorResponse(c, 'denied', 'only admins may see the policy in effect for others: ask for subject=self')
    let subjects: PolicySubject[]
    if (ids) {
      subjects = []
      for (const id of new Set(ids)) {
        const found = await policySubject(id, caller, plane)
        if (!found) return errorResponse(c, 'invalid_input', `unknown subject "${id}": use self, role:<role>, agent:<agent> or user:<user name>`)
        subjects.push(found)
      }
    } else subjects = admin ? await policySubjects(plane) : [selfSubject(caller)]
    // Edges are listed to operators and admins only: naming one must not tell others which exist.
    if (edgeRef && !can(caller, 'readEdges')) return errorResponse(c, 'denied', 'deciding as run on an edge is for operators and admins')
    const edge = edgeRef ? plane.sources.edges.get(edgeRef) : null
    if (edge === undefined) return errorResponse(c, 'invalid_input', `unknown edge "${edgeRef}"`)
    const keys = skill && new Set(skill.split(',').map((k) => k.trim()))
    const text = q?.toLowerCase()
    const matching = plane.skills
      .list()
      .filter(
        (s) =>
          (!keys || keys.has(s.key)) &&
          (!text || s.key.toLowerCase().includes(text)) &&
          (!klass || s.class === klass) &&
          (!cursor || s.key > cursor) &&
          canSee(caller, s, plane.skills),
      )
      .sort((a, b) => (a.key < b.key ? -1 : 1))
    const page = matching.slice(0, limit)
    const policies = plane.policies.rows()
    return c.json({
      subjects: subjects.map(({ id, level, subject, label, note }) => ({ id, level, subject, label, note })),
      skills: page.map((s) => ({
        key: s.key,
        class: s.class,
        scope: s.scope,
        cells: subjects.map((who) => effectivePolicy(plane, s, who, edge, policies)),
      })),
      nextCursor: matching.length > limit ? page[page.length - 1]!.key : null,
    })
  })

  const set = createRoute({
    method: 'put',
    path: '/',
    summary: 'Set a policy (admin)',
    middleware: [requireAbility('managePolicies')] as const,
    request: { ...body(policyBody) },
    responses: { 200: returns(Policy, 'The policy'), ...failures(400, 401, 403) },
  })
  serve(app, set, async (c) => {
    const body = await parseBody(c, policyBody, 'invalid policy')
    if (!body.ok) return body.response
    const result = await plane.policies.set(body.value, c.get('caller'), plane.now())
    if (!result.ok) return errorResponse(c, 'invalid_input', result.message)
    return c.json(result.policy)
  })

  const clear = createRoute({
    method: 'delete',
    path: '/{id}',
    summary: 'Clear a policy (admin)',
    middleware: [requireAbility('managePolicies')] as const,
    request: { ...params('/{id}') },
    responses: { 200: returns(Policy, 'Cleared'), ...failures(401, 403, 404) },
  })
  serve(app, clear, async (c) => {
    const cleared = await plane.policies.clear(c.req.param('id'), c.get('caller'))
    if (!cleared) return errorResponse(c, 'not_found', `no policy "${c.req.param('id')}"`)
    return c.json(cleared)
  })
  return app
}
