import { OpenAPIHono, createRoute } from '@hono/zod-openapi'
import type { Skillplane } from '../../../agents/index.js'
import type { ValueKind } from '../../../connections/index.js'
import type { HttpEnv } from '../http-env.js'
import { body, failures, params, query, returns, serve } from '../openapi/declare.js'
import { ConnectionValue, SecretList, SettingList } from '../openapi/response-schemas.js'
import { errorResponse } from '../error-response.js'
import { parseBody } from '../parse-body.js'
import { describeZod } from '../describe-zod.js'
import { parseInput } from '../parse-input.js'
import { valueBody, valueOwnerQuery } from '../request-schemas.js'
import { requireAbility } from '../middleware/require-ability.js'

/** `/api/secrets` and `/api/settings` (admin): a secret's value goes in and never comes out. */
export function connectionValueRoutes(plane: Skillplane, kind: ValueKind): OpenAPIHono<HttpEnv> {
  const app = new OpenAPIHono<HttpEnv>()
  app.use(requireAbility('manageConnections'))
  const store = () => (kind === 'secret' ? plane.values.secrets : plane.values.settings)

  const list = createRoute({
    method: 'get',
    path: '/',
    summary: kind === 'secret' ? 'Stored secrets: names, owners and versions, never values (admin)' : 'Stored settings with their values (admin)',
    responses: { 200: returns(kind === 'secret' ? SecretList : SettingList, `{ ${kind}s }`), ...failures(401, 403) },
  })
  serve(app, list, async (c) => c.json({ [`${kind}s`]: await store().list() }))

  const set = createRoute({
    method: 'put',
    path: '/{name}',
    summary: kind === 'secret' ? 'Set a secret, global or for an agent or user (admin)' : 'Set a setting, global or for an agent or user (admin)',
    request: { ...params('/{name}'), ...body(valueBody) },
    responses: {
      200: returns(ConnectionValue, kind === 'secret' ? 'The secret as listed, without its value' : 'The setting as listed'),
      ...failures(400, 401, 403),
    },
  })
  serve(app, set, async (c) => {
    const body = await parseBody(c, valueBody, `invalid ${kind}`)
    if (!body.ok) return body.response
    const { value, ...owner } = body.value
    return c.json(await store().set(c.req.param('name'), value, owner, c.get('caller')))
  })

  const remove = createRoute({
    method: 'delete',
    path: '/{name}',
    summary: `Delete a ${kind} (admin)`,
    ...query(valueOwnerQuery),
    request: params('/{name}'),
    responses: { 200: returns(ConnectionValue, 'The deleted entry'), ...failures(400, 401, 403, 404) },
  })
  serve(app, remove, async (c) => {
    const query = parseInput(valueOwnerQuery, c.req.query())
    if (!query.success) return errorResponse(c, 'invalid_input', `invalid ${kind} owner: ${describeZod(query.error)}`)
    const deleted = await store().delete(c.req.param('name'), query.data, c.get('caller'))
    if (!deleted) return errorResponse(c, 'not_found', `no ${kind} ${c.req.param('name')} for ${whose(query.data)}`)
    return c.json(deleted)
  })
  return app
}

function whose(owner: { agent?: string; user?: string }): string {
  return owner.user ? `user ${owner.user}` : owner.agent ? `agent ${owner.agent}` : 'everyone (global)'
}
