import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js'
import type { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js'
import { loadedMcpSdk } from './mcp-sdk.js'
import type { ResolvedMcpServer } from '../../config/index.js'
import type { JsonSchema, SkillDefinition } from '../../skill/index.js'
import { SkillError, subjectsOf } from '../../runtime/index.js'
import { callMeta } from './call-meta.js'
import type { ListedResources, McpServerHandle } from './mcp-server-handle.js'
import { serverSkillFields } from './server-skill-fields.js'
import { callerKey } from './caller-key.js'
import { reservedScheme, uriTooLong } from './uri-limits.js'

const INPUT: JsonSchema = {
  type: 'object',
  properties: { uri: { type: 'string', minLength: 1, description: 'The URI of a resource the server lists, or one its resource templates match.' } },
  required: ['uri'],
  additionalProperties: false,
}

const OUTPUT: JsonSchema = {
  type: 'object',
  properties: {
    contents: {
      type: 'array',
      items: {
        type: 'object',
        required: ['uri'],
        properties: { uri: { type: 'string' }, mimeType: { type: 'string' }, text: { type: 'string' }, blob: { type: 'string' } },
      },
    },
  },
  required: ['contents'],
}

/** Whether the server lists `uri` or one of its templates matches it (never a skill: URI: those are skillplane's). */
export function servesUri(listed: ListedResources, uri: string): boolean {
  if (reservedScheme(uri)) return false
  return listed.resources.some((r) => r.uri === uri) || listed.templates.some((t) => matchesTemplate(t.uriTemplate, uri))
}

/** Whether an RFC 6570 URI template matches `uri` (one that doesn't parse matches nothing). */
export function matchesTemplate(template: string, uri: string): boolean {
  return templateOf(template)?.match(uri) != null
}

const parsedTemplates = new Map<string, UriTemplate | null>()

/** A template parsed once; one that doesn't parse matches nothing (nor any before a connection loaded the SDK: none is listed then). */
function templateOf(text: string): UriTemplate | null {
  let template = parsedTemplates.get(text)
  if (template === undefined) {
    const sdk = loadedMcpSdk()
    if (!sdk) return null
    try {
      template = new sdk.UriTemplate(text)
    } catch {
      template = null
    }
    if (parsedTemplates.size > 10_000) parsedTemplates.clear()
    parsedTemplates.set(text, template)
  }
  return template
}

/**
 * The skill that reads an imported server's resources (`<server>_read_resource`): input `{ uri }`,
 * output the server's `{ contents }`. Only a URI the server lists or one of its templates matches
 * reaches it; the read goes through the connection like a tool call (per-person sessions, needs_auth).
 * `listed(subject)` is what the caller may read: a per-person server's, that person's own listing (undefined while it can't list).
 */
export function mcpResourceSkill(
  server: ResolvedMcpServer,
  key: string,
  connection: McpServerHandle,
  listed: (subject: string | null) => Promise<ListedResources | null | undefined>,
): SkillDefinition {
  const oauth = server.transport === 'http' ? server.oauth : undefined
  const override = server.resources
  return {
    key,
    title: `Read a resource of ${server.name}`,
    description: `Read a resource of MCP server "${server.name}" by its URI: one it lists, or one its resource templates match.`,
    class: override?.class ?? 'safe',
    tags: ['mcp', 'resources'],
    agents: [...new Set([...server.agents, ...(override?.agents ?? [])])],
    input: INPUT,
    output: OUTPUT,
    ...serverSkillFields(server, connection),
    run: async (input, ctx) => {
      const { uri } = input as { uri: string }
      const long = uriTooLong(uri)
      if (long) throw new SkillError('invalid_input', `resource URI: ${long}`)
      const subject = oauth?.account === 'person' ? subjectsOf(ctx.caller, null, ctx.onBehalfOf).user : null
      const current = await listed(subject)
      // Undefined: the person's session could not list (not connected): the read meets the same needs_auth.
      if (current !== undefined && (!current || !servesUri(current, uri))) {
        throw new SkillError(
          'not_found',
          `MCP server "${server.name}" has no resource ${JSON.stringify(uri)}: it neither lists it nor has a template that matches it`,
        )
      }
      // A server that echoes its credentials back gets them scrubbed like any injected secret.
      const conceal = () => {
        for (const value of connection.secretValues(subject)) ctx.secrets.conceal(value)
      }
      conceal()
      let result: ReadResourceResult
      try {
        result = await connection.request((client, options) => client.readResource({ uri, _meta: callMeta(ctx.callId) }, options), {
          signal: ctx.signal,
          subject,
          meta: callMeta(ctx.callId),
          client: ctx.client,
          caller: callerKey(ctx.caller, ctx.onBehalfOf),
        })
      } finally {
        conceal()
      }
      // A server answering for skillplane's own scheme would pass its text off as an instruction skill's.
      const spoofed = result.contents.find((c) => reservedScheme(c.uri))
      if (spoofed) {
        throw new SkillError(
          'unavailable',
          `MCP server "${server.name}" answered the read of ${JSON.stringify(uri)} with ${JSON.stringify(spoofed.uri)}: skill: URIs are skillplane's instruction skills; refused`,
        )
      }
      return { contents: result.contents }
    },
  }
}
