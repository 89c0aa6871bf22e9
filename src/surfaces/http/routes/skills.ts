import { OpenAPIHono, createRoute } from '@hono/zod-openapi'
import { CLASSES, type Skill, type SkillClass } from '../../../skill/index.js'
import type { Skillplane } from '../../../agents/index.js'
import { approvalFor } from '../../../runtime/index.js'
import { skillDetail } from '../../../registry/index.js'
import { canSee, mayActivate, suggestKey } from '../../../access/index.js'
import { listSkillsPage } from '../../../inventory/index.js'
import { invokeBody, skillEditBody, skillListQuery, skillSearchQuery, skillSharingBody } from '../request-schemas.js'
import { DISCOVER_KEY } from '../../../discovery/index.js'
import { describeZod } from '../describe-zod.js'
import { parseInput } from '../parse-input.js'
import type { HttpEnv } from '../http-env.js'
import { errorResponse } from '../error-response.js'
import { parseBody } from '../parse-body.js'
import { clientSignal } from '../client-signal.js'
import { requireAbility } from '../middleware/require-ability.js'
import { statusForCode } from '../status-for-code.js'
import { instructionDetail } from '../../../sources/agent-skills/index.js'
import { skillCursor } from '../skill-cursor.js'
import { body, failures, params, query, returns, serve } from '../openapi/declare.js'
import { SkillDetail, SkillList, SkillSearch, SkillSharing, Success } from '../openapi/response-schemas.js'

export function skillRoutes(plane: Skillplane): OpenAPIHono<HttpEnv> {
  const app = new OpenAPIHono<HttpEnv>()

  const list = createRoute({
    method: 'get',
    path: '/',
    summary: 'List the skills the caller may see',
    ...query(skillListQuery),
    responses: { 200: returns(SkillList, 'Skills'), ...failures(400, 401) },
  })
  serve(app, list, (c) => {
    const caller = c.get('caller')
    const query = parseInput(skillListQuery, c.req.query())
    if (!query.success) return errorResponse(c, 'invalid_input', `invalid skills query: ${describeZod(query.error)}`)
    const { class: klass, category, tag, source, agent, q, scope, available, connection, key, cursor, limit } = query.data
    const agentId = agent ? plane.agents.resolve(agent) : undefined
    if (agent && !agentId) return errorResponse(c, 'invalid_input', `unknown agent "${agent}"`)
    const after = cursor === undefined ? undefined : skillCursor.decode(cursor)
    if (after === null) return errorResponse(c, 'invalid_input', 'invalid skills query: cursor: not a cursor this API gave out (pass nextCursor as it came)')
    const filter = {
      class: klass,
      category,
      tag,
      source,
      scope,
      agentId,
      keys: key?.split(',').map((k) => k.trim()),
      q,
      available: available === undefined ? undefined : available === 'true',
      connection,
    }
    const page = listSkillsPage(plane.skills, caller, filter, { after, limit })
    return c.json({ skills: page.skills, nextCursor: page.next === null ? null : skillCursor.encode(page.next) })
  })

  // Through the discover_skills skill, so a search is audited and can teach discovery like any call.
  const search = createRoute({
    method: 'get',
    path: '/search',
    summary: 'Discover the skills the caller may use for a task (discover_skills), best first',
    ...query(skillSearchQuery),
    responses: { 200: returns(SkillSearch, '{ results, omitted }'), ...failures(400, 401, 403) },
  })
  serve(app, search, async (c) => {
    const query = parseInput(skillSearchQuery, c.req.query())
    if (!query.success) return errorResponse(c, 'invalid_input', `invalid search: ${describeZod(query.error)}`)
    const { q, limit, maxTokens, agent, excludeBound, conversationId } = query.data
    const envelope = await plane.invoke(
      DISCOVER_KEY,
      { query: q, limit, maxTokens, agent, excludeBound: excludeBound === undefined ? undefined : excludeBound === 'true' },
      { caller: c.get('caller'), conversationId, signal: c.req.raw.signal },
    )
    return envelope.ok ? c.json(envelope.data as object) : c.json(envelope, statusForCode(envelope.error.code))
  })

  const show = createRoute({
    method: 'get',
    path: '/{key}',
    summary: 'One skill with its schemas and catalog fields',
    request: params('/{key}'),
    responses: { 200: returns(SkillDetail, 'Skill detail: an executable skill, or an instruction skill (no schemas)'), ...failures(401, 404) },
  })
  serve(app, show, (c) => {
    const caller = c.get('caller')
    const key = c.req.param('key')
    // An agent key sees the instruction skills it may activate; a person those shared with them.
    const shows = (instruction: { name: string; disableModelInvocation: boolean }) =>
      caller.kind === 'agent' ? mayActivate(caller, null, instruction, plane.skills) : canSee(caller, { key: instruction.name }, plane.skills)
    const instruction = plane.skills.instructions.get(key)
    if (instruction && shows(instruction)) {
      return c.json(instructionDetail(instruction, plane.skills, plane.skills.instructions.findings, caller))
    }
    const skill = plane.skills.get(key)
    if (!skill || !canSee(caller, skill, plane.skills)) {
      const instructions = plane.skills.instructions.skills.filter(shows).map((i) => ({ key: i.name }))
      return errorResponse(c, 'not_found', `no skill with key "${key}"${suggestKey(key, [...plane.skills.list(), ...instructions], caller, plane.skills)}`)
    }
    return c.json(
      skillDetail(skill, plane.skills, caller, plane.skills.connectionState(skill, { caller, agentId: caller.kind === 'agent' ? caller.agentId : null })),
    )
  })

  const edit = createRoute({
    method: 'patch',
    path: '/{key}',
    summary: 'Edit the catalog side of a skill (admin)',
    middleware: [requireAbility('manageSkills')] as const,
    request: { ...params('/{key}'), ...body(skillEditBody) },
    responses: { 200: returns(SkillDetail, 'Updated skill'), ...failures(400, 401, 403, 404, 409) },
  })
  serve(app, edit, async (c) => {
    const key = c.req.param('key')
    const skill = plane.skills.get(key)
    const instruction = plane.skills.instructions.get(key)
    if (!skill && !instruction) return errorResponse(c, 'not_found', `no skill with key "${key}"`)
    const body = await parseBody(c, skillEditBody, 'invalid catalog edit')
    if (!body.ok) return body.response
    const refused = classEditRefusal(body.value.class, skill)
    if (refused) return errorResponse(c, 'invalid_input', `invalid catalog edit: ${refused}`)
    const row = await plane.skills.edit(key, body.value, plane.now())
    if (!row) return errorResponse(c, 'not_synced', `skill "${key}" has no catalog row yet: run skillplane sync`)
    return c.json(
      skill
        ? skillDetail(skill, plane.skills, undefined, plane.skills.connectionState(skill, { caller: c.get('caller'), agentId: null }))
        : instructionDetail(instruction!, plane.skills, plane.skills.instructions.findings),
    )
  })

  const share = createRoute({
    method: 'put',
    path: '/{key}/sharing',
    summary: 'Share a skill with all, named agents or named users; hidden from everyone else but admins (admin)',
    middleware: [requireAbility('manageSkills')] as const,
    request: { ...params('/{key}'), ...body(skillSharingBody) },
    responses: { 200: returns(SkillSharing, '{ key, sharing, notes }'), ...failures(400, 401, 403, 404, 409) },
  })
  serve(app, share, async (c) => {
    const body = await parseBody(c, skillSharingBody, 'invalid sharing')
    if (!body.ok) return body.response
    const shared = await plane.skills.share(c.req.param('key'), body.value, c.get('caller'))
    if (!shared.ok) return errorResponse(c, shared.code, shared.message)
    return c.json({ key: shared.key, sharing: shared.sharing, notes: shared.notes })
  })

  const invoke = createRoute({
    method: 'post',
    path: '/{key}/invoke',
    summary: 'Invoke any skill',
    request: { ...params('/{key}'), ...body(invokeBody) },
    responses: { 200: returns(Success, 'Result'), ...failures(202, 400, 401, 403, 404, 410, 413, 424, 501, 502, 503, 504) },
  })
  serve(app, invoke, async (c) => {
    // The most common first mistake: the skill's arguments posted without the `input` wrapper.
    const body = await parseBody(
      c,
      invokeBody,
      'invalid request body',
      'the body is { "input": { …the skill\'s arguments… } }, with agent, conversationId, edgeId, approvalId and wait beside it',
    )
    if (!body.ok) return body.response
    const { input, agent, conversationId, edgeId, approvalId, wait } = body.value
    const envelope = await plane.invoke(c.req.param('key'), input, {
      caller: c.get('caller'),
      agent,
      conversationId,
      edgeId,
      approval: approvalFor(approvalId, wait),
      signal: clientSignal(c),
    })
    return c.json(envelope, envelope.ok ? 200 : statusForCode(envelope.error.code))
  })

  return app
}

/** The declared class is a floor: an admin may raise a skill's class (an edge's pack, say), never lower it. */
function classEditRefusal(klass: SkillClass | null | undefined, skill: Skill | undefined): string | null {
  if (klass === undefined || klass === null) return null
  if (!skill) return 'class: an instruction skill has no class (it is activated, not invoked)'
  if (CLASSES.indexOf(klass) < CLASSES.indexOf(skill.declaredClass)) {
    return `class: "${skill.key}" declares ${skill.declaredClass}; the catalog can raise a class, not lower it below the declared one`
  }
  return null
}
