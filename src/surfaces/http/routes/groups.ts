import { Hono } from 'hono'
import type { Skillplane } from '../../../skillplane/index.js'
import type { HttpEnv } from '../http-env.js'
import { parseBody } from '../parse-body.js'
import { addGroupBody, groupEditBody } from '../request-schemas.js'
import { requireRole } from '../middleware/require-role.js'
import { answerIdentity as answer } from './answer-identity.js'

/** Groups: roles granted to their members (admin). */
export function groupRoutes(plane: Skillplane): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>()
  app.get('/', requireRole('admin'), async (c) => c.json({ groups: await plane.people.groups.list() }))

  app.post('/', requireRole('admin'), async (c) => {
    const body = await parseBody(c, addGroupBody, 'invalid group')
    if (!body.ok) return body.response
    return answer(c, async () => ({ group: await plane.people.groups.add(body.value, c.get('caller')) }), 201)
  })

  app.patch('/:id', requireRole('admin'), async (c) => {
    const body = await parseBody(c, groupEditBody, 'invalid group change')
    if (!body.ok) return body.response
    return answer(c, () => plane.people.groups.setRole(c.req.param('id'), body.value.role, c.get('caller')))
  })

  app.put('/:id/members/:user', requireRole('admin'), (c) =>
    answer(c, () => plane.people.groups.addMember(c.req.param('id'), c.req.param('user'), c.get('caller'))),
  )

  app.delete('/:id/members/:user', requireRole('admin'), (c) =>
    answer(c, () => plane.people.groups.removeMember(c.req.param('id'), c.req.param('user'), c.get('caller'))),
  )
  return app
}
