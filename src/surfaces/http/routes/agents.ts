import { Hono } from 'hono'
import type { Skillplane } from '../../../plane/skillplane.js'
import type { HttpEnv } from '../http-env.js'

export function agentRoutes(plane: Skillplane): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>()
  app.get('/', (c) => {
    const caller = c.get('caller')
    const agents = plane.catalog
      .agents()
      .filter((a) => caller.kind !== 'agent' || a.id === caller.agentId)
      .map((a) => ({ ...a, skills: plane.catalog.boundSkills(a.id) }))
    return c.json({ agents })
  })
  return app
}
