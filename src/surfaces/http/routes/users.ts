import { OpenAPIHono, createRoute } from '@hono/zod-openapi'
import type { Skillplane } from '../../../agents/index.js'
import { AccountError } from '../../../accounts/index.js'
import type { HttpEnv } from '../http-env.js'
import { body, failures, params, returns, serve } from '../openapi/declare.js'
import { User, UserCreated, UserList } from '../openapi/response-schemas.js'
import { parseBody } from '../parse-body.js'
import { addUserBody, userEditBody } from '../request-schemas.js'
import { requireAbility } from '../middleware/require-ability.js'
import { answerIdentity as answer } from './answer-identity.js'

/** Users: the people behind keys (admin). */
export function userRoutes(plane: Skillplane): OpenAPIHono<HttpEnv> {
  const app = new OpenAPIHono<HttpEnv>()
  const list = createRoute({
    method: 'get',
    path: '/',
    summary: 'Users with their roles, groups and state (admin)',
    middleware: [requireAbility('manageUsers')] as const,
    responses: { 200: returns(UserList, '{ users }'), ...failures(401, 403) },
  })
  serve(app, list, async (c) => c.json({ users: await plane.people.users.list() }))

  const add = createRoute({
    method: 'post',
    path: '/',
    summary: 'Add a user (admin)',
    middleware: [requireAbility('manageUsers')] as const,
    request: { ...body(addUserBody) },
    responses: { 201: returns(UserCreated, '{ user }'), ...failures(400, 401, 403, 409) },
  })
  serve(app, add, async (c) => {
    const body = await parseBody(c, addUserBody, 'invalid user')
    if (!body.ok) return body.response
    return answer(c, async () => ({ user: await plane.people.users.add(body.value, c.get('caller')) }), 201)
  })

  const edit = createRoute({
    method: 'patch',
    path: '/{id}',
    summary: "Change a user's role, or disable or enable them (admin)",
    middleware: [requireAbility('manageUsers')] as const,
    request: { ...params('/{id}'), ...body(userEditBody) },
    responses: { 200: returns(User, 'The user'), ...failures(400, 401, 403, 404, 409) },
  })
  serve(app, edit, async (c) => {
    const body = await parseBody(c, userEditBody, 'invalid user change')
    if (!body.ok) return body.response
    const { role, disabled } = body.value
    const id = c.req.param('id')
    const caller = c.get('caller')
    return answer(c, async () => {
      let user = await plane.people.users.get(id)
      if (!user) throw new AccountError('not_found', `no user "${id.slice(0, 100)}"`)
      // An admin locking themselves out leaves nobody to undo it over HTTP.
      if (disabled === true && user.id === caller.id) throw new AccountError('conflict', 'you cannot disable your own user: ask another admin')
      if (role !== undefined) user = await plane.people.users.setRole(user.id, role, caller)
      if (disabled !== undefined) user = disabled ? await plane.people.users.disable(user.id, caller) : await plane.people.users.enable(user.id, caller)
      return user
    })
  })
  return app
}
