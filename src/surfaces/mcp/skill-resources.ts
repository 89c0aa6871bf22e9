import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import {
  ErrorCode,
  ListResourcesRequestSchema,
  ReadResourceRequestSchema,
  type Resource,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js'
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js'
import { lookup } from 'mime-types'
import type { Skillplane } from '../../agents/index.js'
import type { Caller, CallerClient } from '../../skill/index.js'
import { listSkillFiles } from '../../sources/agent-skills/index.js'
import type { ImportedResources } from './imported-resources.js'
import { notFound, RequestError, unwrap } from './request-error.js'

const SCHEME = 'skill://'

export interface SkillResourceOptions {
  caller: Caller
  conversationId: string
  /** Whether the caller's tool list holds this tool (the resources ride on it). */
  mayCall(tool: 'activate_skill' | 'read_skill_resource'): boolean
  /** Imported MCP servers' resources, listed after these and read through their servers' read skills. */
  imported?: Pick<ImportedResources, 'list' | 'read' | 'signature'>
  /** The session's client as the caller channel of a request's calls. */
  clientFor(extra: RequestHandlerExtra<ServerRequest, ServerNotification>): CallerClient
}

/**
 * Instruction skills as MCP resources, for clients that browse resources: each skill the caller
 * may activate is `skill://NAME/SKILL.md` (rendered for the caller) with its files as
 * `skill://NAME/PATH`. Every read is a call of activate_skill or read_skill_resource through the
 * pipeline: gated and audited like the tools.
 */
export function serveSkillResources(server: Server, plane: Skillplane, options: SkillResourceOptions): { signature(): string; lists(uri: string): boolean } {
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

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: [...resources(), ...((await options.imported?.list()) ?? [])] }))
  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    const { uri } = request.params
    // Imported servers' URIs pass through verbatim; skill:// is the instruction skills' own.
    if (!uri.startsWith(SCHEME) && options.imported) return options.imported.read(uri, extra.signal, options.clientFor(extra))
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
  return {
    signature: () => JSON.stringify([resources().map((r) => r.uri), options.imported?.signature()]),
    lists: (uri) => uri.startsWith(SCHEME) && resources().some((r) => r.uri === uri),
  }
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
