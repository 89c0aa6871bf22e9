import type { GetPromptResult, Prompt } from '@modelcontextprotocol/sdk/types.js'
import type { ResolvedMcpServer } from '../../config/index.js'
import type { JsonSchema, SkillDefinition } from '../../skill/index.js'
import { SkillError, subjectsOf } from '../../runtime/index.js'
import { didYouMean } from '../../text/index.js'
import { callMeta } from './call-meta.js'
import type { McpServerHandle } from './mcp-server-handle.js'
import { serverSkillFields } from './server-skill-fields.js'
import { callerKey } from './caller-key.js'

/** The prompt the skill takes its name from: `<server>_get_prompt`. */
export const GET_PROMPT = 'get_prompt'
// Enough of the prompt names for a model to know what to ask for, without a catalogue-sized description.
const NAMES_SHOWN = 50

const INPUT: JsonSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1, description: "The prompt's name, as the server lists it" },
    arguments: { type: 'object', additionalProperties: { type: 'string' }, description: "The prompt's arguments, by name" },
  },
  required: ['name'],
  additionalProperties: false,
}

// A GetPromptResult: messages of a role and a typed content block (text, image, audio, resources).
const OUTPUT: JsonSchema = {
  type: 'object',
  properties: {
    description: { type: 'string' },
    messages: {
      type: 'array',
      items: {
        type: 'object',
        required: ['role', 'content'],
        properties: { role: { enum: ['user', 'assistant'] }, content: { type: 'object', required: ['type'], properties: { type: { type: 'string' } } } },
      },
    },
  },
  required: ['messages'],
}

/**
 * The prompts of an MCP server as one skill: `{ name, arguments? }` in (checked against the prompt's
 * declared arguments), the server's GetPromptResult out. `safe` unless the config's `prompts.class`
 * says otherwise, bound to the server's agents. `shown` are the prompts its description names (null
 * for a per-person server, whose prompts are each person's own); `prompts(subject)` is what the caller may get.
 */
export function mcpPromptSkill(
  server: ResolvedMcpServer,
  key: string,
  connection: McpServerHandle,
  shown: readonly Prompt[] | null,
  prompts: (subject: string | null) => Promise<readonly Prompt[]>,
): SkillDefinition {
  const oauth = server.transport === 'http' ? server.oauth : undefined
  const names = (shown ?? [])
    .slice(0, NAMES_SHOWN)
    .map((p) => `${p.name}${p.arguments?.length ? ` (${p.arguments.map((a) => a.name + (a.required ? '' : '?')).join(', ')})` : ''}`)
  const more = shown && shown.length > NAMES_SHOWN ? `, and ${shown.length - NAMES_SHOWN} more` : ''
  const which = shown ? `Its prompts: ${names.join('; ')}${more}.` : "Its prompts are each person's own: the ones their own account lists."
  return {
    key,
    title: `Get a prompt of ${server.name}`,
    description: `Get a prompt of MCP server "${server.name}" by name, with its arguments: the messages it gives. ${which}`,
    class: server.prompts?.class ?? 'safe',
    tags: ['mcp', 'prompt'],
    agents: [...new Set([...server.agents, ...(server.prompts?.agents ?? [])])],
    input: INPUT,
    output: OUTPUT,
    ...serverSkillFields(server, connection),
    run: async (input, ctx) => {
      const { name, arguments: args = {} } = input as { name: string; arguments?: Record<string, string> }
      const subject = oauth?.account === 'person' ? subjectsOf(ctx.caller, null, ctx.onBehalfOf).user : null
      const own = await prompts(subject)
      const prompt = own.find((p) => p.name === name)
      if (!prompt) {
        throw new SkillError(
          'invalid_input',
          `MCP server "${server.name}" has no prompt "${name}"${didYouMean(
            name,
            own.map((p) => p.name),
          )}`,
        )
      }
      checkArguments(server.name, prompt, args)
      // A server that echoes its credentials back gets them scrubbed like any injected secret.
      const conceal = () => {
        for (const value of connection.secretValues(subject)) ctx.secrets.conceal(value)
      }
      conceal()
      try {
        const meta = callMeta(ctx.callId)
        const result = await connection.request(
          (client, options) => client.getPrompt({ name, ...(Object.keys(args).length > 0 && { arguments: args }), _meta: meta }, options),
          // What the server asks or logs while it answers reaches the caller, as during a tool call.
          { signal: ctx.signal, subject, meta, client: ctx.client, caller: callerKey(ctx.caller, ctx.onBehalfOf) },
        )
        return promptResult(result)
      } finally {
        conceal()
      }
    },
  }
}

/** The prompt's required arguments given, and no argument it doesn't declare: named, before the server is asked. */
function checkArguments(server: string, prompt: Prompt, args: Record<string, string>): void {
  const declared = prompt.arguments ?? []
  const of = `prompt "${prompt.name}" of MCP server "${server}"`
  const known = new Set(declared.map((a) => a.name))
  const unknown = Object.keys(args).filter((name) => !known.has(name))
  if (unknown.length > 0) {
    const takes = declared.length > 0 ? `it takes ${declared.map((a) => a.name).join(', ')}` : 'it takes no arguments'
    throw new SkillError('invalid_input', `${of} has no argument${unknown.length === 1 ? '' : 's'} ${unknown.map((n) => `"${n}"`).join(', ')} (${takes})`)
  }
  const missing = declared.filter((a) => a.required && args[a.name] === undefined).map((a) => a.name)
  if (missing.length > 0) {
    throw new SkillError('invalid_input', `${of} needs the argument${missing.length === 1 ? '' : 's'} ${missing.map((n) => `"${n}"`).join(', ')}`)
  }
}

/** What the skill returns: the result's description and messages (the server's `_meta` is its own). */
function promptResult(result: GetPromptResult): GetPromptResult {
  return { ...(result.description !== undefined && { description: result.description }), messages: result.messages }
}
