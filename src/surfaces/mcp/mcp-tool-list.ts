import type { Tool } from '@modelcontextprotocol/sdk/types.js'
import type { Skillplane } from '../../plane/skillplane.js'
import type { Caller } from '../../skill/skill-types.js'
import { callableSkills, type CallableSkill } from '../callable-skills.js'

export interface McpToolEntry extends CallableSkill {
  tool: Tool
}

/** The tools a caller may call, by name, as MCP tools with annotations from the class. */
export function mcpToolList(plane: Skillplane, caller: Caller): Map<string, McpToolEntry> {
  const tools = new Map<string, McpToolEntry>()
  for (const entry of callableSkills(plane, caller)) {
    const { skill } = entry
    const output = skill.output?.jsonSchema
    tools.set(skill.toolName, {
      ...entry,
      tool: {
        name: skill.toolName,
        title: entry.title,
        description: entry.description,
        inputSchema: entry.inputSchema as Tool['inputSchema'],
        ...(output?.type === 'object' && { outputSchema: output as Tool['outputSchema'] }),
        annotations: { title: entry.title, readOnlyHint: skill.class === 'safe', destructiveHint: skill.class === 'dangerous' },
      },
    })
  }
  return tools
}
