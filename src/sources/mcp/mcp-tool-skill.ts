import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js'
import type { ResolvedMcpServer } from '../../config/index.js'
import type { JsonSchema, SkillClass, SkillDefinition } from '../../skill/index.js'
import { noteSubSpan, subjectsOf } from '../../runtime/index.js'
import { answeredCallId, callMeta } from './call-meta.js'
import type { McpServerHandle } from './mcp-server-handle.js'
import { serverSkillFields } from './server-skill-fields.js'
import { callerKey } from './caller-key.js'

const MAX_ERROR_TEXT = 4096

/**
 * The class an MCP tool's annotations imply: read-only is safe, destructive is dangerous, anything
 * else may change something and is mutating. Hints are the server's claim; the config can override.
 */
export function classFromAnnotations(annotations: Tool['annotations']): SkillClass {
  if (annotations?.readOnlyHint === true) return 'safe'
  if (annotations?.destructiveHint === true) return 'dangerous'
  return 'mutating'
}

/**
 * An MCP tool as a skill. Its input schema is kept verbatim; the result is the tool result's
 * `content` (text, images, ...) and, when the tool returns it, `structuredContent`, which its
 * output schema (kept verbatim) describes.
 */
export function mcpToolSkill(server: ResolvedMcpServer, tool: Tool, key: string, connection: McpServerHandle): SkillDefinition {
  const override = server.tools[tool.name]
  const title = tool.title ?? tool.annotations?.title
  const oauth = server.transport === 'http' ? server.oauth : undefined
  return {
    key,
    ...(title && { title }),
    description: tool.description?.trim() || `The "${tool.name}" tool of MCP server "${server.name}".`,
    class: override?.class ?? classFromAnnotations(tool.annotations),
    tags: ['mcp'],
    agents: [...new Set([...server.agents, ...(override?.agents ?? [])])],
    input: tool.inputSchema as JsonSchema,
    output: resultSchema(tool.outputSchema as JsonSchema | undefined, `urn:skillplane:mcp:${server.name}:${encodeURIComponent(tool.name)}:output`),
    ...serverSkillFields(server, connection),
    // A tool that only answers task-based calls fails every ordinary one: say so before calling it.
    unavailable: () =>
      tool.execution?.taskSupport === 'required'
        ? `the tool requires task-based calls (execution.taskSupport "required"), which skillplane does not make yet`
        : connection.unavailable(),
    run: async (input, ctx) => {
      // A per-person server's session is the person's the call acts for.
      const subject = oauth?.account === 'person' ? subjectsOf(ctx.caller, null, ctx.onBehalfOf).user : null
      // A server that echoes its credentials back gets them scrubbed like any injected secret (a token refreshed during the call too).
      const conceal = () => {
        for (const value of connection.secretValues(subject)) ctx.secrets.conceal(value)
      }
      conceal()
      let result
      const from = new Date().toISOString()
      try {
        result = await connection.callTool(tool.name, input, {
          signal: ctx.signal,
          onProgress: (update) => ctx.progress(update),
          subject,
          meta: callMeta(ctx.callId),
          client: ctx.client,
          caller: callerKey(ctx.caller, ctx.onBehalfOf),
        })
      } finally {
        conceal()
      }
      // A skillplane behind the server said which of its calls ran this: the tree shows it (or joins it, on the same database).
      const remote = answeredCallId(result._meta)
      if (remote !== null) noteSubSpan(ctx, { kind: 'remote', server: server.name, callId: remote, from, to: new Date().toISOString() })
      if (result.isError) {
        const text = textOf(result)
        throw new Error(`MCP tool "${tool.name}" of server "${server.name}" reported an error: ${text || '(no text)'}`)
      }
      return { content: result.content ?? [], ...(result.structuredContent !== undefined && { structuredContent: result.structuredContent }) }
    },
  }
}

function resultSchema(outputSchema: JsonSchema | undefined, id: string): JsonSchema {
  // An $id makes the embedded schema its own resource, so its "#/$defs/..." references still point
  // into it (a server's own $id does that already). Appended, so the server's key order is kept.
  const structured = outputSchema && ('$id' in outputSchema ? outputSchema : { ...outputSchema, $id: id })
  return {
    // The wrapper takes the draft the output schema declares, so the schema is read as written.
    ...(typeof outputSchema?.$schema === 'string' && { $schema: outputSchema.$schema }),
    type: 'object',
    properties: {
      content: { type: 'array', items: { type: 'object', required: ['type'], properties: { type: { type: 'string' } } } },
      ...(structured && { structuredContent: structured }),
    },
    required: structured ? ['content', 'structuredContent'] : ['content'],
  }
}

function textOf(result: CallToolResult): string {
  const text = (result.content ?? [])
    .filter((c): c is { type: 'text'; text: string } => c.type === 'text')
    .map((c) => c.text)
    .join('\n')
    .trim()
  return text.length > MAX_ERROR_TEXT ? `${text.slice(0, MAX_ERROR_TEXT)}…` : text
}
