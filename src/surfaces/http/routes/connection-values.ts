import { Hono } from 'hono'
import type { Skillplane } from '../../../skillplane/index.js'
import type { ValueKind } from '../../../secrets/index.js'
import type { HttpEnv } from '../http-env.js'
import { errorResponse } from '../error-response.js'
import { parseBody } from '../parse-body.js'
import { describeZod } from '../describe-zod.js'
import { parseInput } from '../parse-input.js'
import { valueBody, valueOwnerQuery } from '../request-schemas.js'
import { requireRole } from '../middleware/require-role.js'

/** `/api/secrets` and `/api/settings` (admin): a secret's value goes in and never comes out. */
export function connectionValueRoutes(plane: Skillplane, kind: ValueKind): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>()
  app.use(requireRole('admin'))
  const store = () => (kind === 'secret' ? plane.values.secrets : plane.values.settings)

  app.get('/', async (c) => c.json({ [`${kind}s`]: await store().list() }))

  app.put('/:name', async (c) => {
    const body = await parseBody(c, valueBody, `invalid ${kind}`)
    if (!body.ok) return body.response
    const { value, ...owner } = body.value
    return c.json(await store().set(c.req.param('name'), value, owner, c.get('caller')))
  })

  app.delete('/:name', async (c) => {
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
