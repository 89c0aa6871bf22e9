import { OpenAPIHono, createRoute } from '@hono/zod-openapi'
import type { Skillplane } from '../../../agents/index.js'
import type { HttpEnv } from '../http-env.js'
import { failures, params, query, returns, serve } from '../openapi/declare.js'
import { AgentList, SkillsPrompt } from '../openapi/response-schemas.js'
import { errorResponse } from '../error-response.js'
import { exportQuery } from '../request-schemas.js'
import { skillsPrompt, exportTar } from '../../../sources/agent-skills/index.js'
import type { Caller } from '../../../skill/index.js'
import { agentCaller, agentId } from '../../../registry/index.js'
import { describeModel, runRefusal } from '../../../agents/index.js'
import { Readable } from 'node:stream'
import { canSee } from '../../../access/index.js'
import { mayExportAgent, maySeeAgent } from '../../../abilities/index.js'

export function agentRoutes(plane: Skillplane): OpenAPIHono<HttpEnv> {
  const app = new OpenAPIHono<HttpEnv>()
  const list = createRoute({
    method: 'get',
    path: '/',
    summary: 'The agents the caller may see: model, availability, bound skills',
    responses: { 200: returns(AgentList, 'Agents'), ...failures(401) },
  })
  serve(app, list, (c) => {
    const caller = c.get('caller')
    const configured = new Map(plane.config.agents.map((a) => [agentId(a.name), a]))
    const agents = plane.agents
      .list()
      .filter((a) => caller.kind !== 'agent' || a.id === caller.agentId)
      .map((a) => {
        const agent = configured.get(a.id)
        // Said before anyone starts a run: the runner would refuse it for the same reason.
        const unavailableReason = agent ? runRefusal(agent) : `agent "${a.name}" is no longer in the config`
        return {
          ...a,
          model: describeModel(agent?.model),
          available: unavailableReason === null,
          unavailableReason,
          // Bindings name only the skills this caller may see.
          skills: plane.agents.boundSkills(a.id).filter((key) => canSee(caller, { key }, plane.skills)),
        }
      })
    return c.json({ agents })
  })

  // The <available_skills> fragment for an agent's system prompt ("" when it may see none).
  const prompt = createRoute({
    method: 'get',
    path: '/{id}/skills-prompt',
    summary: "The <available_skills> fragment of the agent's system prompt: the instruction skills it may activate",
    request: { ...params('/{id}/skills-prompt') },
    responses: { 200: returns(SkillsPrompt, '{ agent, prompt }'), ...failures(401, 404) },
  })
  serve(app, prompt, (c) => {
    const caller = c.get('caller')
    const agentId = plane.agents.resolve(c.req.param('id'))
    if (!agentId || !maySeeAgent(caller, agentId)) {
      return errorResponse(c, 'not_found', `no agent "${c.req.param('id')}"`)
    }
    const skills = plane.skills.instructions
      .visibleTo(caller, agentId, plane.skills)
      .map((s) => ({ name: s.name, description: plane.skills.instructions.description(s, plane.skills) }))
    return c.json({ agent: agentId, prompt: skillsPrompt(skills) })
  })
  // The same file set as `skillplane skills export`, as a tar stream (admins, or the agent's own key).
  const skillsExport = createRoute({
    method: 'get',
    path: '/{id}/skills-export',
    summary: "The agent's instruction skills as files, a tar (admins, or the agent's own key)",
    ...query(exportQuery),
    request: { ...params('/{id}/skills-export') },
    responses: {
      200: { description: 'A tar of the skills', content: { 'application/x-tar': { schema: { type: 'string', format: 'binary' } } } },
      ...failures(400, 401, 404, 500),
    },
  })
  serve(app, skillsExport, async (c) => {
    const caller = c.get('caller')
    const agentId = plane.agents.resolve(c.req.param('id'))
    if (!agentId || !mayExportAgent(caller, agentId)) return errorResponse(c, 'not_found', `no agent "${c.req.param('id')}"`)
    // As the CLI does: rendered as the agent itself unless a user is named.
    let as: Caller = agentCaller(agentId, plane.agents.get(agentId)?.name ?? agentId)
    const user = c.req.query('user')
    if (user && caller.kind === 'user') {
      const found = await plane.people.keys.callerFor(user)
      if (!found) return errorResponse(c, 'invalid_input', `no enabled user or active key named "${user}"`)
      as = found
    }
    let set
    try {
      set = plane.skills.export(as, agentId)
    } catch (error) {
      return errorResponse(c, 'render_failed', (error as Error).message)
    }
    // Skill content leaving the plane is on record, like an activation is.
    await plane.audit.events.record('skills.exported', `agent:${agentId}`, caller, { as: as.name, skills: set.manifest.skills, files: set.files.size })
    return new Response(Readable.toWeb(Readable.from(exportTar(set))) as ReadableStream, {
      headers: { 'content-type': 'application/x-tar', 'content-disposition': `attachment; filename="${agentId}-skills.tar"` },
    })
  })

  return app
}
