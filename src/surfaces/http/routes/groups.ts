import { OpenAPIHono, createRoute } from '@hono/zod-openapi'
import type { Skillplane } from '../../../agents/index.js'
import type { HttpEnv } from '../http-env.js'
import { body, failures, params, returns, serve } from '../openapi/declare.js'
import { Group, GroupList, GroupCreated } from '../openapi/response-schemas.js'
import { parseBody } from '../parse-body.js'
import { addGroupBody, groupEditBody } from '../request-schemas.js'
import { requireAbility } from '../middleware/require-ability.js'
import { answerIdentity as answer } from './answer-identity.js'

/** Groups: roles granted to their members (admin). */
export function groupRoutes(plane: Skillplane): OpenAPIHono<HttpEnv> {
  const app = new OpenAPIHono<HttpEnv>()
  const list = createRoute({
    method: 'get',
    path: '/',
    summary: 'Groups with their roles and members (admin)',
    middleware: [requireAbility('manageUsers')] as const,
    responses: { 200: returns(GroupList, '{ groups }'), ...failures(401, 403) },
  })
  serve(app, list, async (c) => c.json({ groups: await plane.people.groups.list() }))

  const add = createRoute({
    method: 'post',
    path: '/',
    summary: 'Add a group (admin)',
    middleware: [requireAbility('manageUsers')] as const,
    request: { ...body(addGroupBody) },
    responses: { 201: returns(GroupCreated, '{ group }'), ...failures(400, 401, 403, 409) },
  })
  serve(app, add, async (c) => {
    const body = await parseBody(c, addGroupBody, 'invalid group')
    if (!body.ok) return body.response
    return answer(c, async () => ({ group: await plane.people.groups.add(body.value, c.get('caller')) }), 201)
  })

  const edit = createRoute({
    method: 'patch',
    path: '/{id}',
    summary: "Change a group's role (admin)",
    middleware: [requireAbility('manageUsers')] as const,
    request: { ...params('/{id}'), ...body(groupEditBody) },
    responses: { 200: returns(Group, 'The group'), ...failures(400, 401, 403, 404) },
  })
  serve(app, edit, async (c) => {
    const body = await parseBody(c, groupEditBody, 'invalid group change')
    if (!body.ok) return body.response
    return answer(c, () => plane.people.groups.setRole(c.req.param('id'), body.value.role, c.get('caller')))
  })

  const addMember = createRoute({
    method: 'put',
    path: '/{id}/members/{user}',
    summary: 'Add a user to a group (admin)',
    middleware: [requireAbility('manageUsers')] as const,
    request: { ...params('/{id}/members/{user}') },
    responses: { 200: returns(Group, 'The group'), ...failures(401, 403, 404) },
  })
  serve(app, addMember, (c) => answer(c, () => plane.people.groups.addMember(c.req.param('id'), c.req.param('user'), c.get('caller'))))

  const removeMember = createRoute({
    method: 'delete',
    path: '/{id}/members/{user}',
    summary: 'Remove a user from a group (admin)',
    middleware: [requireAbility('manageUsers')] as const,
    request: { ...params('/{id}/members/{user}') },
    responses: { 200: returns(Group, 'The group'), ...failures(401, 403, 404) },
  })
  serve(app, removeMember, (c) => answer(c, () => plane.people.groups.removeMember(c.req.param('id'), c.req.param('user'), c.get('caller'))))
  return app
}
