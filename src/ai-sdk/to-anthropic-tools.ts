import type { Plane } from '../plane/index.js'
import { callTool, failureText, parseArguments, resolveToolOptions, toolIndex, type ToolAdapterOptions } from './call-tool.js'

/** A tool in the Anthropic Messages API `tools` array. */
export interface AnthropicTool {
  name: string
  description: string
  input_schema: Record<string, unknown>
}

/** A `tool_use` content block of an assistant message. */
export interface AnthropicToolUse {
  type?: 'tool_use'
  id: string
  name: string
  input: unknown
}

/** The `tool_result` block to send back in the next user message. */
export interface AnthropicToolResult {
  type: 'tool_result'
  tool_use_id: string
  content: string
  is_error?: true
}

/** The caller's skills as Anthropic tool JSON, and a dispatcher that runs a `tool_use` through the pipeline. */
export function toAnthropicTools(
  plane: Plane,
  given: ToolAdapterOptions,
): { tools: AnthropicTool[]; dispatch(use: AnthropicToolUse): Promise<AnthropicToolResult> } {
  const options = resolveToolOptions(plane, given)
  const index = toolIndex(plane, options)
  return {
    tools: [...index.values()].map((entry) => ({ name: entry.skill.toolName, description: entry.description, input_schema: entry.inputSchema })),
    async dispatch(use) {
      const fail = (content: string): AnthropicToolResult => ({ type: 'tool_result', tool_use_id: use.id, content, is_error: true })
      const entry = index.get(use.name)
      if (!entry) return fail(`not_found: no tool "${use.name}" for this caller`)
      const parsed = parseArguments(use.input)
      if (!parsed.ok) return fail(parsed.message)
      const envelope = await callTool(plane, entry, parsed.args, options)
      if (!envelope.ok) return fail(failureText(envelope))
      return { type: 'tool_result', tool_use_id: use.id, content: JSON.stringify(envelope.data) ?? 'null' }
    },
  }
}
