import { Hono } from 'hono'
import type { Skillplane } from '../../../skillplane/index.js'
import type { HttpEnv } from '../http-env.js'
import { parseBody } from '../parse-body.js'
import { addGroupBody, groupEditBody } from '../request-schemas.js'
import { requireAbility } from '../middleware/require-ability.js'
import { answerIdentity as answer } from './answer-identity.js'

/** Groups: roles granted to their members (admin). */
export function groupRoutes(plane: Skillplane): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>()
  app.get('/', requireAbility('manageUsers'), async (c) => c.json({ groups: await plane.groups.list() }))

  app.post('/', requireAbility('manageUsers'), async (c) => {
    const body = await parseBody(c, addGroupBody, 'invalid group')
    if (!body.ok) return body.response
    return answer(c, async () => ({ group: await plane.groups.add(body.value, c.get('caller')) }), 201)
  })

  app.patch('/:id', requireAbility('manageUsers'), async (c) => {
    const body = await parseBody(c, groupEditBody, 'invalid group change')
    if (!body.ok) return body.response
    return answer(c, () => plane.groups.setRole(c.req.param('id'), body.value.role, c.get('caller')))
  })

  app.put('/:id/members/:user', requireAbility('manageUsers'), (c) =>
    answer(c, () => plane.groups.addMember(c.req.param('id'), c.req.param('user'), c.get('caller'))),
  )

  app.delete('/:id/members/:user', requireAbility('manageUsers'), (c) =>
    answer(c, () => plane.groups.removeMember(c.req.param('id'), c.req.param('user'), c.get('caller'))),
  )
  return app
}
