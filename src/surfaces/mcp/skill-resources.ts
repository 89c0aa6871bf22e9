import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import {
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ReadResourceRequestSchema,
  type Prompt,
  type Resource,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js'
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js'
import { lookup } from 'mime-types'
import type { Skillplane } from '../../agents/index.js'
import type { Caller, CallerClient, Envelope } from '../../skill/index.js'
import { listSkillFiles } from '../../sources/agent-skills/index.js'

const SCHEME = 'skill://'
// The MCP specification's code for a resource that doesn't exist.
const RESOURCE_NOT_FOUND = -32002

export interface SkillResourceOptions {
  caller: Caller
  conversationId: string
  /** Whether the caller's tool list holds this tool (the resources and prompts ride on it). */
  mayCall(tool: 'activate_skill' | 'read_skill_resource'): boolean
  /** The session's client as the caller channel of a request's calls. */
  clientFor(extra: RequestHandlerExtra<ServerRequest, ServerNotification>): CallerClient
}

/**
 * Instruction skills as MCP resources and prompts, for clients that browse resources: each skill
 * the caller may activate is `skill://NAME/SKILL.md` (rendered for the caller) with its files as
 * `skill://NAME/PATH`, and a prompt NAME that activates it. Every read and prompt is a call of
 * activate_skill or read_skill_resource through the pipeline: gated and audited like the tools.
 */
export function serveSkillResources(server: Server, plane: Skillplane, options: SkillResourceOptions): { signature(): string } {
  const { caller } = options
  const visible = () => (options.mayCall('activate_skill') ? plane.skills.instructions.visibleTo(caller, null, plane.skills) : [])

  const resources = (): Resource[] =>
    visible().flatMap((skill) => [
      {
        uri: `${SCHEME}${skill.name}/SKILL.md`,
        name: skill.name,
        title: skill.name,
        description: plane.skills.instructions.description(skill, plane.skills),
        mimeType: 'text/markdown',
      },
      ...(options.mayCall('read_skill_resource') ? listSkillFiles(skill.dir) : []).map((path) => ({
        uri: `${SCHEME}${skill.name}/${path.split('/').map(encodeURIComponent).join('/')}`,
        name: `${skill.name}/${path}`,
        mimeType: lookup(path) || 'application/octet-stream',
      })),
    ])
  const prompts = (): Prompt[] =>
    visible().map((skill) => ({
      name: skill.name,
      title: `Use the ${skill.name} skill`,
      description: plane.skills.instructions.description(skill, plane.skills),
    }))

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: resources() }))
  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    const { uri } = request.params
    const parsed = parseUri(uri)
    const missing = (why: string, callId?: string) => notFound(uri, why, callId)
    // Only what resources/list shows this caller exists for it: the same answer for a skill that is missing or hidden.
    if (!visible().some((skill) => skill.name === parsed.skill)) throw missing(`this caller has no skill "${parsed.skill}" to read`)
    // A document read, not an activation into a conversation: each read returns the instructions.
    const call = { caller, signal: extra.signal, client: options.clientFor(extra) }
    if (parsed.path === 'SKILL.md') {
      const data = unwrap(await plane.invoke('activate_skill', { name: parsed.skill }, call), uri, missing) as { content: string }
      return { contents: [{ uri, mimeType: 'text/markdown', text: data.content }] }
    }
    const read = await plane.invoke('read_skill_resource', { skill: parsed.skill, path: parsed.path }, call)
    const data = unwrap(read, uri, missing) as { mimeType: string; content?: string; blob?: string }
    return {
      contents: [data.blob !== undefined ? { uri, mimeType: data.mimeType, blob: data.blob } : { uri, mimeType: data.mimeType, text: data.content ?? '' }],
    }
  })
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: prompts() }))
  server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
    const { name } = request.params
    // The MCP specification's answer to an unknown prompt name is invalid params.
    const unknown = (why: string, callId?: string) =>
      new RequestError(ErrorCode.InvalidParams, `unknown prompt ${JSON.stringify(name)}: ${why}`, callId ? { callId } : undefined)
    if (!visible().some((skill) => skill.name === name)) throw unknown('prompts/list shows the prompts this caller may get')
    // The prompt activates the skill in this session's conversation, as the tool would.
    const envelope = await plane.invoke(
      'activate_skill',
      { name },
      {
        caller,
        conversationId: options.conversationId,
        signal: extra.signal,
        client: options.clientFor(extra),
      },
    )
    const data = unwrap(envelope, `prompt ${JSON.stringify(name)}`, unknown) as { content: string }
    return { description: `The ${name} skill's instructions`, messages: [{ role: 'user' as const, content: { type: 'text' as const, text: data.content } }] }
  })
  return { signature: () => JSON.stringify([resources().map((r) => r.uri), prompts().map((p) => [p.name, p.description])]) }
}

function parseUri(uri: string): { skill: string; path: string } {
  const rest = uri.startsWith(SCHEME) ? uri.slice(SCHEME.length) : ''
  const slash = rest.indexOf('/')
  if (slash <= 0 || slash === rest.length - 1) throw notFound(uri, `skill resources are ${SCHEME}<skill>/SKILL.md and ${SCHEME}<skill>/<path>`)
  let path: string
  try {
    path = rest
      .slice(slash + 1)
      .split('/')
      .map(decodeURIComponent)
      .join('/')
  } catch {
    throw new RequestError(ErrorCode.InvalidParams, `"${uri}" is not a valid URI`)
  }
  return { skill: rest.slice(0, slash), path }
}

/** A JSON-RPC error that goes out as written (McpError's message starts "MCP error CODE:", which SDK clients add again). */
class RequestError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message)
  }
}

/** The MCP specification's resource-not-found error, naming the URI in the message and in data. */
function notFound(uri: string, why: string, callId?: string): RequestError {
  return new RequestError(RESOURCE_NOT_FOUND, `resource ${JSON.stringify(uri)} not found: ${why}`, { uri, ...(callId && { callId }) })
}

/** The call's data, or the refusal as the MCP error a client understands. */
function unwrap(envelope: Envelope, what: string, missing: (why: string, callId: string) => RequestError): unknown {
  if (envelope.ok) return envelope.data
  const { code, message } = envelope.error
  if (code === 'not_found') throw missing(message, envelope.callId)
  if (code === 'invalid_input') throw new RequestError(ErrorCode.InvalidParams, `${what}: ${message}`, { callId: envelope.callId })
  throw new RequestError(ErrorCode.InternalError, `${what}: ${code}: ${message}`, { callId: envelope.callId })
}
