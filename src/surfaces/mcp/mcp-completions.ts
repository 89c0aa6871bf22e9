import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { CompleteRequestSchema, ErrorCode, type CompleteResult, type ResourceTemplate } from '@modelcontextprotocol/sdk/types.js'
import type { Skillplane } from '../../agents/index.js'
import type { Caller } from '../../skill/index.js'
import { listSkillFiles } from '../../sources/agent-skills/index.js'
import type { ListedPrompt } from './mcp-prompts.js'
import { RequestError } from './request-error.js'

/** The MCP specification's most values in one completion. */
const MAX_VALUES = 100

/** The template of instruction skills' files, whose variables completion/complete fills in. */
export const SKILL_TEMPLATE: ResourceTemplate = {
  uriTemplate: 'skill://{skill}/{+path}',
  name: 'skill-file',
  title: "An instruction skill's file",
  description: 'SKILL.md or a file of an instruction skill this key may activate: skill://<skill>/<path>',
}

/** The instruction skills' template, for a caller that may activate one. */
export function skillTemplates(plane: Skillplane, caller: Caller, mayCall: (skill: string) => boolean): ResourceTemplate[] {
  return mayCall('activate_skill') && plane.skills.instructions.visibleTo(caller, null, plane.skills).length > 0 ? [SKILL_TEMPLATE] : []
}

export interface McpCompletionOptions {
  caller: Caller
  /** Whether the caller's tool list holds this skill (completions ride on the skill they complete for). */
  mayCall(skill: string): boolean
  /** The prompts this caller may get, as prompts/list shows them. */
  prompts(): Promise<ListedPrompt[]>
  /** Imported resource templates this caller may use, as resources/templates/list shows them, each with its server and read skill. */
  templates(): Promise<Array<{ uriTemplate: string; server: string; skill: string }>>
}

/**
 * completion/complete for what this caller may use: instruction skills' prompts (they take no
 * arguments: no values), the variables of `skill://{skill}/{+path}` (the skills it may activate,
 * their files), and an imported prompt's arguments or resource template's variables, asked of
 * their server (a per-person server's: those of the session's own person, asked of their own
 * session). The gate is the one tools/list applies, decided anew for every request; a completion
 * is a suggestion, not a call, so it leaves no audit row (one per keystroke otherwise).
 */
export function serveMcpCompletions(server: Server, plane: Skillplane, options: McpCompletionOptions): void {
  const { caller } = options
  server.setRequestHandler(CompleteRequestSchema, async (request, extra): Promise<CompleteResult> => {
    const { ref, argument, context } = request.params
    if (ref.type === 'ref/prompt') {
      const listed = (await options.prompts()).find((p) => p.prompt.name === ref.name)
      if (!listed)
        throw new RequestError(ErrorCode.InvalidParams, `unknown prompt ${JSON.stringify(ref.name)}: prompts/list shows the prompts this caller may get`)
      if (listed.kind === 'instruction') return capped([])
      return passThrough(listed.server, { ...request.params, ref: { type: 'ref/prompt', name: listed.upstream.name } }, extra.signal)
    }
    if (ref.uri === SKILL_TEMPLATE.uriTemplate) {
      const skills = options.mayCall('activate_skill') ? plane.skills.instructions.visibleTo(caller, null, plane.skills) : []
      if (argument.name === 'skill')
        return capped(
          matching(
            skills.map((s) => s.name),
            argument.value,
          ),
        )
      if (argument.name !== 'path')
        throw new RequestError(ErrorCode.InvalidParams, `the template ${SKILL_TEMPLATE.uriTemplate} has no variable "${argument.name}"`)
      const skill = skills.find((s) => s.name === context?.arguments?.skill)
      if (!skill) return capped([])
      const files = options.mayCall('read_skill_resource') ? listSkillFiles(skill.dir) : []
      return capped(matching(['SKILL.md', ...files], argument.value))
    }
    const template = (await options.templates()).find((t) => t.uriTemplate === ref.uri && options.mayCall(t.skill))
    if (!template)
      throw new RequestError(
        ErrorCode.InvalidParams,
        `unknown resource template ${JSON.stringify(ref.uri)}: resources/templates/list shows the ones this caller may use`,
      )
    return passThrough(template.server, request.params, extra.signal)
  })

  async function passThrough(name: string, params: Parameters<Skillplane['sources']['mcpComplete']>[1], signal: AbortSignal): Promise<CompleteResult> {
    try {
      // Cut to 100 values and scrubbed of the server's credentials by the source.
      return await plane.sources.mcpComplete(name, params, { caller, signal })
    } catch (error) {
      const code = (error as { code?: unknown }).code
      const message = `completion by MCP server "${name}": ${typeof code === 'string' ? `${code}: ` : ''}${(error as Error).message}`
      throw new RequestError(code === 'denied' ? ErrorCode.InvalidParams : ErrorCode.InternalError, message)
    }
  }
}

/** What starts with the typed value first, then what holds it elsewhere. */
function matching(candidates: string[], value: string): string[] {
  const typed = value.toLowerCase()
  const starts = candidates.filter((c) => c.toLowerCase().startsWith(typed))
  return [...starts, ...candidates.filter((c) => !starts.includes(c) && c.toLowerCase().includes(typed))]
}

/** At most 100 values, with how many there are. */
function capped(values: string[]): CompleteResult {
  return { completion: { values: values.slice(0, MAX_VALUES), total: values.length, hasMore: values.length > MAX_VALUES } }
}
