import type { Tool } from '@modelcontextprotocol/sdk/types.js'
import type { Skillplane } from '../../skillplane/index.js'
import type { Caller } from '../../skill/index.js'
import { callableSkills, type CallableSkill } from '../../access/index.js'
import { listedTools } from '../../discovery/index.js'

export interface McpToolEntry extends CallableSkill {
  tool: Tool
}

/** The tools a caller may call, by name, as MCP tools with annotations from the class. */
export function mcpToolList(plane: Skillplane, caller: Caller): Map<string, McpToolEntry> {
  const tools = new Map<string, McpToolEntry>()
  for (const entry of listedTools(callableSkills(plane, caller), plane.config.discovery).tools) {
    const { skill } = entry
    const output = outputSchemaOf(entry)
    tools.set(skill.toolName, {
      ...entry,
      tool: {
        name: skill.toolName,
        title: entry.title,
        description: entry.description,
        inputSchema: entry.inputSchema as Tool['inputSchema'],
        ...(output && { outputSchema: output as Tool['outputSchema'] }),
        annotations: { title: entry.title, readOnlyHint: skill.class === 'safe', destructiveHint: skill.class === 'dangerous' },
      },
    })
  }
  return tools
}

/**
 * The output schema a client checks structuredContent against: the skill's object schema, or for
 * a tool imported from another MCP server (whose content passes through) that tool's own.
 */
function outputSchemaOf(entry: CallableSkill): Record<string, unknown> | undefined {
  const schema = entry.skill.output?.jsonSchema
  if (entry.skill.source !== 'mcp') return schema?.type === 'object' ? schema : undefined
  const structured = (schema?.properties as Record<string, Record<string, unknown>> | undefined)?.structuredContent
  if (!structured) return undefined
  // The $id skillplane gave it is internal; the server's own $id (if any) stays, and so does the
  // draft it declared, which the import moved to the wrapper.
  const { $id, ...rest } = structured
  const own = typeof $id === 'string' && $id.startsWith('urn:skillplane:mcp:') ? rest : structured
  return typeof schema?.$schema === 'string' ? { $schema: schema.$schema, ...own } : own
}
