import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { Resource, ResourceTemplate } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import type { ListedResources } from './mcp-server-handle.js'

const MAX_ENTRIES = 10_000
// The instruction skills' URIs on skillplane's own /mcp: an imported server can't shadow them.
const RESERVED_SCHEME = 'skill://'

// Read leniently: one malformed entry becomes a problem, not a failed listing.
const LenientResourceList = z.looseObject({ resources: z.array(z.unknown()), nextCursor: z.string().optional() })
const LenientTemplateList = z.looseObject({ resourceTemplates: z.array(z.unknown()), nextCursor: z.string().optional() })

/**
 * Every page of resources/list and resources/templates/list, each entry checked on its own; bounded
 * in entries and time (one deadline for both lists) like the tool list. A server that does not
 * declare `resources` has none (null).
 */
export async function listAllResources(client: Client, timeoutMs: number): Promise<ListedResources | null> {
  const declared = client.getServerCapabilities()?.resources
  if (!declared) return null
  const { ResourceSchema, ResourceTemplateSchema } = await import('@modelcontextprotocol/sdk/types.js')
  const deadline = Date.now() + timeoutMs
  const problems: string[] = []
  const resources = check(
    await pages(client, 'resources/list', LenientResourceList, (page) => page.resources, deadline, timeoutMs),
    ResourceSchema,
    'resource',
    (r) => r.uri,
    problems,
  )
  const templates = check(
    await pages(client, 'resources/templates/list', LenientTemplateList, (page) => page.resourceTemplates, deadline, timeoutMs),
    ResourceTemplateSchema,
    'resource template',
    (t) => t.uriTemplate,
    problems,
  )
  return { resources: resources as Resource[], templates: templates as ResourceTemplate[], subscribe: declared.subscribe === true, problems }
}

async function pages<P extends { nextCursor?: string | undefined }>(
  client: Client,
  method: 'resources/list' | 'resources/templates/list',
  schema: z.ZodType<P>,
  items: (page: P) => unknown[],
  deadline: number,
  timeoutMs: number,
): Promise<unknown[]> {
  const raw: unknown[] = []
  const seen = new Set<string>()
  let cursor: string | undefined
  do {
    const left = deadline - Date.now()
    if (left <= 0) throw new Error(`${method} took longer than ${timeoutMs} ms`)
    const page = await client.request({ method, params: cursor ? { cursor } : {} }, schema, { timeout: left })
    raw.push(...items(page))
    if (raw.length > MAX_ENTRIES) throw new Error(`${method}: the server lists more than ${MAX_ENTRIES}`)
    cursor = page.nextCursor
    if (cursor !== undefined && seen.has(cursor)) throw new Error(`${method} repeated the cursor ${JSON.stringify(cursor).slice(0, 80)}`)
    if (cursor !== undefined) seen.add(cursor)
  } while (cursor !== undefined)
  return raw
}

function check<T>(raw: unknown[], schema: z.ZodType<T>, what: string, id: (entry: T) => string, problems: string[]): T[] {
  const kept: T[] = []
  const ids = new Set<string>()
  raw.forEach((item, index) => {
    const parsed = schema.safeParse(item)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      problems.push(`${what} #${index + 1} is malformed (${issue?.path.join('.') || '(root)'}: ${issue?.message}); skipped`)
      return
    }
    const name = id(parsed.data)
    if (name.startsWith(RESERVED_SCHEME)) problems.push(`${what} "${name}": ${RESERVED_SCHEME} URIs are skillplane's instruction skills; skipped`)
    else if (ids.has(name)) problems.push(`${what} "${name}" is listed twice; the first is kept`)
    else {
      ids.add(name)
      // The parse keeps unknown keys (loose schemas): the entry is served as the server wrote it.
      kept.push(item as T)
    }
  })
  return kept
}
