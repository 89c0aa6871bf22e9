import type { Plane } from '../plane/index.js'
import { DISCOVER_KEY, foundKeys } from '../discovery/index.js'
import { callerTools, callTool, failureText, parseArguments, resolveToolOptions, type ToolAdapterOptions } from './call-tool.js'

/** A tool in the Anthropic Messages API `tools` array. */
export interface AnthropicTool {
  name: string
  description: string
  input_schema: Record<string, unknown>
  /** Left out of the model's context until a tool search result references it. */
  defer_loading?: true
}

/** A `tool_use` content block of an assistant message. */
export interface AnthropicToolUse {
  type?: 'tool_use'
  id: string
  name: string
  input: unknown
}

/** What a tool search answers with: the API loads the deferred tool it names. */
export interface AnthropicToolReference {
  type: 'tool_reference'
  tool_name: string
}

/** The `tool_result` block to send back in the next user message. */
export interface AnthropicToolResult {
  type: 'tool_result'
  tool_use_id: string
  content: string | AnthropicToolReference[]
  is_error?: true
}

/**
 * The caller's skills as Anthropic tool JSON, and a dispatcher that runs a `tool_use` through the
 * pipeline. Discovering, every tool but the core set is `defer_loading`, and discover_skills is a
 * custom tool search: its result references the deferred tools it found, which the API then loads.
 */
export function toAnthropicTools(
  plane: Plane,
  given: ToolAdapterOptions,
): { tools: AnthropicTool[]; dispatch(use: AnthropicToolUse): Promise<AnthropicToolResult> } {
  const options = resolveToolOptions(plane, given)
  const { all, discovering, core } = callerTools(plane, options)
  const deferred = new Set(discovering ? [...all.keys()].filter((name) => !core.includes(name)) : [])
  return {
    tools: [...all.values()].map((entry) => ({
      name: entry.skill.toolName,
      description: entry.description,
      input_schema: entry.inputSchema,
      ...(deferred.has(entry.skill.toolName) && { defer_loading: true as const }),
    })),
    async dispatch(use) {
      const fail = (content: string): AnthropicToolResult => ({ type: 'tool_result', tool_use_id: use.id, content, is_error: true })
      const entry = all.get(use.name)
      if (!entry) return fail(`not_found: no tool "${use.name}" for this caller`)
      const parsed = parseArguments(use.input)
      if (!parsed.ok) return fail(parsed.message)
      const envelope = await callTool(plane, entry, parsed.args, options)
      if (!envelope.ok) return fail(failureText(envelope))
      // Found tools not loaded yet are referenced; an answer with none (only core tools, instruction
      // skills, nothing) reads as it is.
      const references = entry.skill.key === DISCOVER_KEY ? foundKeys(envelope.data).filter((name) => deferred.has(name)) : []
      if (references.length)
        return { type: 'tool_result', tool_use_id: use.id, content: references.map((name) => ({ type: 'tool_reference', tool_name: name })) }
      return { type: 'tool_result', tool_use_id: use.id, content: JSON.stringify(envelope.data) ?? 'null' }
    },
  }
}
