import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import {
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  type GetPromptResult,
  type Prompt,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js'
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js'
import type { Skillplane } from '../../agents/index.js'
import type { ImportedPrompts } from '../../sources/mcp/index.js'
import type { Caller, CallerClient } from '../../skill/index.js'
import { subjectsOf } from '../../runtime/index.js'
import { RequestError, unwrap } from './request-error.js'

export interface McpPromptOptions {
  caller: Caller
  conversationId: string
  /** Whether the caller's tool list holds this skill (the prompts ride on it). */
  mayCall(skill: string): boolean
  /** The session's client as the caller channel of a request's calls. */
  clientFor(extra: RequestHandlerExtra<ServerRequest, ServerNotification>): CallerClient
}

/** A prompt /mcp lists: an instruction skill's, or an imported server's got through its get_prompt skill. */
export type ListedPrompt = { kind: 'instruction'; prompt: Prompt } | { kind: 'imported'; prompt: Prompt; server: string; skill: string; upstream: Prompt }

/**
 * The prompts one caller may get: a prompt per instruction skill it may activate (named after the
 * skill; getting it activates the skill in the session's conversation), and the prompts of imported
 * MCP servers whose get_prompt skill it may call, named `<server>_<prompt>` like their tools (a
 * per-person server's: the session's own person's, as their own upstream session lists them). Every
 * get is a call through the pipeline: gated and audited like the tools.
 */
export function serveMcpPrompts(server: Server, plane: Skillplane, options: McpPromptOptions): { list(): Promise<ListedPrompt[]>; signature(): string } {
  const { caller } = options
  // The person behind the session's key: per-person servers' prompts are theirs alone (an agent's own key has none).
  const subject = subjectsOf(caller, null, null).user

  // Instruction skills' and shared servers' prompts: what a catalog change is compared by (a person's own are announced as they change).
  const shared = (): ListedPrompt[] => {
    const instructions = options.mayCall('activate_skill') ? plane.skills.instructions.visibleTo(caller, null, plane.skills) : []
    const listed: ListedPrompt[] = instructions.map((skill) => ({
      kind: 'instruction',
      prompt: { name: skill.name, title: `Use the ${skill.name} skill`, description: plane.skills.instructions.description(skill, plane.skills) },
    }))
    const names = new Set(listed.map((p) => p.prompt.name))
    return [...listed, ...imported(plane.sources.mcpPrompts(), names)]
  }
  const list = async (): Promise<ListedPrompt[]> => {
    const listed = shared()
    return [...listed, ...imported(await plane.sources.mcpPersonPrompts(subject, options.mayCall), new Set(listed.map((p) => p.prompt.name)))]
  }
  /** Imported prompts this caller may get under names not taken yet (`names`, added to). */
  const imported = (sets: ImportedPrompts[], names: Set<string>): ListedPrompt[] =>
    sets.flatMap((set) =>
      options.mayCall(set.skill)
        ? set.prompts.flatMap(({ name, prompt }): ListedPrompt[] => {
            // Instruction skill names can't contain `_` and every imported prompt name does: a clash is a bug, and never shadows.
            if (names.has(name)) return []
            names.add(name)
            return [{ kind: 'imported', server: set.server, skill: set.skill, upstream: prompt, prompt: asListed(name, prompt) }]
          })
        : [],
    )

  server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: (await list()).map((p) => p.prompt) }))
  server.setRequestHandler(GetPromptRequestSchema, async (request, extra): Promise<GetPromptResult> => {
    const { name } = request.params
    // The MCP specification's answer to an unknown prompt name is invalid params.
    const unknown = (why: string, callId?: string) =>
      new RequestError(ErrorCode.InvalidParams, `unknown prompt ${JSON.stringify(name)}: ${why}`, callId ? { callId } : undefined)
    // Only what prompts/list shows this caller exists for it: the same answer for a prompt that is missing or hidden.
    const listed = (await list()).find((p) => p.prompt.name === name)
    if (!listed) throw unknown('prompts/list shows the prompts this caller may get')
    const call = { caller, conversationId: options.conversationId, signal: extra.signal, client: options.clientFor(extra) }
    if (listed.kind === 'instruction') {
      // The prompt activates the skill in this session's conversation, as the tool would.
      const envelope = await plane.invoke('activate_skill', { name }, call)
      const data = unwrap(envelope, `prompt ${JSON.stringify(name)}`, unknown) as { content: string }
      return { description: `The ${name} skill's instructions`, messages: [{ role: 'user' as const, content: { type: 'text' as const, text: data.content } }] }
    }
    const args = request.params.arguments
    const envelope = await plane.invoke(listed.skill, { name: listed.upstream.name, ...(args && { arguments: args }) }, call)
    const data = unwrap(envelope, `prompt ${JSON.stringify(name)}`, unknown) as GetPromptResult
    return { ...data, _meta: { 'skillplane/callId': envelope.callId } }
  })
  return {
    list,
    // A per-person server's get_prompt skill allowed or denied shows or hides the person's own prompts.
    signature: () => JSON.stringify([shared().map((p) => p.prompt), subject === null ? [] : plane.sources.mcpPersonSkills('prompts').filter(options.mayCall)]),
  }
}

/** An imported prompt under its listed name, as its server describes it (its `_meta` is the server's own). */
function asListed(name: string, { title, description, arguments: args, icons }: Prompt): Prompt {
  return {
    name,
    ...(title !== undefined && { title }),
    ...(description !== undefined && { description }),
    ...(args && { arguments: args }),
    ...(icons && { icons }),
  }
}
