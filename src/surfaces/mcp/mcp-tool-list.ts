import type { Tool } from '@modelcontextprotocol/sdk/types.js'
import type { Skillplane } from '../../agents/index.js'
import type { Caller } from '../../skill/index.js'
import { callableSkills, type CallableSkill } from '../../access/index.js'
import { DISCOVER_KEY, largeCatalog } from '../../discovery/index.js'
import { CALL_SKILL, callSkillTool } from './call-skill-tool.js'

export interface McpToolEntry extends CallableSkill {
  tool: Tool
}

export interface McpToolList {
  /** What tools/list answers. */
  listed: Tool[]
  /** Every tool the caller may call, by name, listed or not. */
  callable: Map<string, McpToolEntry>
  /** Past the threshold: the list is a core set plus what discovery found, and call_skill calls the rest. */
  discovering: boolean
}

/**
 * A caller's tools as MCP tools with annotations from the class. Up to `discovery.toolThreshold`
 * callable skills, every one is listed; past it, discover_skills, call_skill, the core set, the
 * caller's most used skills and those its discover_skills calls found in this session.
 */
export function mcpToolList(plane: Skillplane, caller: Caller, shown: { mostUsed: readonly string[]; found: ReadonlySet<string> }): McpToolList {
  const skills = callableSkills(plane, caller)
  const { discovering, core } = largeCatalog(skills, plane.config.discovery)
  const callable = new Map(skills.map((entry) => [entry.skill.toolName, toMcpTool(entry)]))
  if (!discovering) return { listed: [...callable.values()].filter((e) => e.skill.key !== DISCOVER_KEY).map((e) => e.tool), callable, discovering }
  const wanted = new Set([...core, ...shown.mostUsed, ...shown.found])
  const rest = [...callable.values()].filter((e) => wanted.has(e.skill.key) && e.skill.key !== DISCOVER_KEY && e.tool.name !== CALL_SKILL)
  const discover = callable.get(DISCOVER_KEY)
  return {
    listed: [...(discover ? [discover.tool] : []), callSkillTool(skills.some((e) => e.skill.class === 'dangerous')), ...rest.map((e) => e.tool)],
    callable,
    discovering,
  }
}

function toMcpTool(entry: CallableSkill): McpToolEntry {
  const { skill } = entry
  const output = outputSchemaOf(entry)
  return {
    ...entry,
    tool: {
      name: skill.toolName,
      title: entry.title,
      description: entry.description,
      inputSchema: entry.inputSchema as Tool['inputSchema'],
      ...(output && { outputSchema: output as Tool['outputSchema'] }),
      annotations: { title: entry.title, readOnlyHint: skill.class === 'safe', destructiveHint: skill.class === 'dangerous' },
    },
  }
}

/**
 * The output schema a client checks structuredContent against: the skill's object schema, or for
 * a tool imported from another MCP server (whose content passes through) that tool's own, byte for byte.
 */
function outputSchemaOf(entry: CallableSkill): Record<string, unknown> | undefined {
  const schema = entry.skill.output?.jsonSchema
  if (entry.skill.source !== 'mcp') return schema?.type === 'object' ? schema : undefined
  const structured = (schema?.properties as Record<string, Record<string, unknown>> | undefined)?.structuredContent
  if (!structured) return undefined
  // The $id skillplane appended is internal; a server's own $id stays where the server put it.
  const { $id, ...rest } = structured
  return typeof $id === 'string' && $id.startsWith('urn:skillplane:mcp:') ? rest : structured
}
