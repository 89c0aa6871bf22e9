import type { Tool } from '@modelcontextprotocol/sdk/types.js'
import type { Skillplane } from '../../plane/skillplane.js'
import type { Skill } from '../../skill/create-skill.js'
import type { Caller, JsonSchema } from '../../skill/skill-types.js'
import { canSee, skillSummary } from '../../registry/skill-view.js'
import { authorize } from '../../policy/authorize.js'
import { decidePolicy } from '../../policy/decide-policy.js'

export interface McpToolEntry {
  skill: Skill
  tool: Tool
  /** The skill's input is not an object: MCP arguments carry it as `{ input }`. */
  wrapped: boolean
}

/**
 * The tools a caller may call, by name: skills it can see (an agent key: its bound skills) that
 * are enabled, that its role may run and that policy does not DENY. Host-scope skills take a
 * required `edge_id`.
 */
export function mcpToolList(plane: Skillplane, caller: Caller): Map<string, McpToolEntry> {
  const agentId = caller.kind === 'agent' ? caller.agentId : null
  const policies = plane.policies.rows()
  const tools = new Map<string, McpToolEntry>()
  for (const skill of plane.registry.list()) {
    if (!canSee(caller, skill, plane.catalog) || !plane.catalog.isEnabled(skill.key)) continue
    if (authorize({ key: skill.key, skillClass: skill.class, caller, agentId, isBound: (a, k) => plane.catalog.isBound(a, k) }) !== null) continue
    if (decidePolicy({ skill: skill.key, skillClass: skill.class, caller, agentId, policies }).decision === 'DENY') continue
    const summary = skillSummary(skill, plane.catalog)
    let input = skill.inputSchemaFor({ caller, agent: agentId })
    const wrapped = input.type !== 'object'
    if (wrapped) input = { type: 'object', properties: { input }, required: ['input'] }
    if (skill.scope === 'host') input = withEdgeId(input)
    const output = skill.output?.jsonSchema
    tools.set(skill.toolName, {
      skill,
      wrapped,
      tool: {
        name: skill.toolName,
        title: summary.title,
        description: summary.description,
        inputSchema: input as Tool['inputSchema'],
        ...(output?.type === 'object' && { outputSchema: output as Tool['outputSchema'] }),
        annotations: {
          title: summary.title,
          readOnlyHint: skill.class === 'safe',
          destructiveHint: skill.class === 'dangerous',
        },
      },
    })
  }
  return tools
}

function withEdgeId(schema: JsonSchema): JsonSchema {
  const properties = (schema.properties as Record<string, unknown> | undefined) ?? {}
  const required = (schema.required as string[] | undefined) ?? []
  return {
    ...schema,
    properties: { ...properties, edge_id: { type: 'string', description: 'The edge (host) to run on.' } },
    required: [...required.filter((r) => r !== 'edge_id'), 'edge_id'],
  }
}
