import type { Tool } from '@modelcontextprotocol/sdk/types.js'

export const CALL_SKILL = 'call_skill'

/** call_skill: runs any skill the caller may call by key, for a large catalog whose list holds only some. */
export function callSkillTool(dangerous: boolean): Tool {
  return {
    name: CALL_SKILL,
    title: 'Call a skill',
    description:
      'Call any skill you may use by its key, listed or not: find it with discover_skills first. `arguments` are the ' +
      "skill's arguments as discover_skills summarises them; a host skill also takes `edge_id`, the edge to run on.",
    inputSchema: {
      type: 'object',
      properties: {
        key: { type: 'string', minLength: 1, description: 'The skill key, as discover_skills returned it.' },
        arguments: { type: 'object', description: "The skill's arguments.", additionalProperties: true },
        edge_id: { type: 'string', description: 'For a host skill: the edge (host) to run on, by name.' },
      },
      required: ['key'],
      additionalProperties: false,
    },
    // It runs whatever it is given: as harmful as the worst skill this caller may call.
    annotations: { title: 'Call a skill', readOnlyHint: false, destructiveHint: dangerous },
  }
}

/** call_skill's arguments as the skill's key and the arguments its own tool would take, or what is wrong with them. */
export function readCallSkill(args: Record<string, unknown>): { ok: true; key: string; args: Record<string, unknown> } | { ok: false; message: string } {
  const { key, arguments: given = {}, edge_id, ...other } = args
  const unknown = Object.keys(other)
  if (unknown.length) return { ok: false, message: `invalid_input: call_skill takes key, arguments and edge_id, not ${unknown.join(', ')}` }
  if (typeof key !== 'string' || key === '') return { ok: false, message: 'invalid_input: call_skill needs key, the key of the skill to call' }
  if (typeof given !== 'object' || given === null || Array.isArray(given))
    return { ok: false, message: "invalid_input: call_skill's arguments must be an object of the skill's arguments" }
  if (edge_id !== undefined && typeof edge_id !== 'string')
    return { ok: false, message: "invalid_input: call_skill's edge_id must be a string, the name of an edge" }
  return { ok: true, key, args: { ...(given as Record<string, unknown>), ...(edge_id !== undefined && { edge_id }) } }
}
