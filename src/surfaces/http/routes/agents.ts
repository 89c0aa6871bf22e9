import { Hono } from 'hono'
import type { Skillplane } from '../../../plane/skillplane.js'
import type { HttpEnv } from '../http-env.js'
import { errorResponse } from '../error-response.js'
import { skillsPrompt } from '../../../sources/agent-skills/skills-prompt.js'

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

  // The <available_skills> fragment for an agent's system prompt ("" when it may see none).
  app.get('/:id/skills-prompt', (c) => {
    const caller = c.get('caller')
    const agentId = plane.catalog.resolveAgent(c.req.param('id'))
    if (!agentId || (caller.kind === 'agent' && caller.agentId !== agentId)) {
      return errorResponse(c, 404, 'not_found', `no agent "${c.req.param('id')}"`)
    }
    const skills = plane.instructions.visibleTo(caller, agentId, plane.catalog)
    return c.json({ agent: agentId, prompt: skillsPrompt(skills) })
  })
  return app
}
