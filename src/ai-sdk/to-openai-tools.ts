import type { Plane } from '../plane/index.js'
import { callerTools, callTool, failureText, parseArguments, resolveToolOptions, type ToolAdapterOptions } from './call-tool.js'

/** A tool in the OpenAI Chat Completions `tools` array. */
export interface OpenAITool {
  type: 'function'
  function: { name: string; description: string; parameters: Record<string, unknown> }
}

/** A tool call as a Chat Completions assistant message carries it. */
export interface OpenAIToolCall {
  id: string
  type?: 'function'
  function: { name: string; arguments: string }
}

/** The message to append for a tool call. */
export interface OpenAIToolMessage {
  role: 'tool'
  tool_call_id: string
  content: string
}

/**
 * The caller's skills as OpenAI tool JSON, and a dispatcher that runs a model's tool call through
 * the pipeline. Discovering, the JSON holds only the core set; dispatch runs any of the caller's tools.
 */
export function toOpenAITools(plane: Plane, given: ToolAdapterOptions): { tools: OpenAITool[]; dispatch(call: OpenAIToolCall): Promise<OpenAIToolMessage> } {
  const options = resolveToolOptions(plane, given)
  const { all, discovering, core } = callerTools(plane, options)
  const listed = discovering ? core.map((name) => all.get(name)!) : [...all.values()]
  return {
    tools: listed.map((entry) => ({
      type: 'function',
      function: { name: entry.skill.toolName, description: entry.description, parameters: entry.inputSchema },
    })),
    async dispatch(call) {
      const reply = (content: string): OpenAIToolMessage => ({ role: 'tool', tool_call_id: call.id, content })
      const entry = all.get(call.function?.name)
      if (!entry) return reply(`not_found: no tool "${call.function?.name}" for this caller`)
      const parsed = parseArguments(call.function.arguments)
      if (!parsed.ok) return reply(parsed.message)
      const envelope = await callTool(plane, entry, parsed.args, options)
      return reply(envelope.ok ? (JSON.stringify(envelope.data) ?? 'null') : failureText(envelope))
    },
  }
}
