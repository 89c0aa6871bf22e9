import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { Resource, ResourceTemplate } from '@modelcontextprotocol/sdk/types.js'
import type { z } from 'zod'
import type { ListedResources } from './mcp-server-handle.js'
import { listPages } from './list-pages.js'
import { resourceProblem, templateProblem } from './uri-limits.js'

const MAX_ENTRIES = 10_000

/**
 * Every page of resources/list and resources/templates/list, each entry checked on its own; bounded
 * in entries and time (one deadline for both lists) like the tool list. A server that does not
 * declare `resources` has none (null); one that answers only one of the lists has none of the other
 * (-32601 to the first page; on a later page it is a failure).
 */
export async function listAllResources(client: Client, timeoutMs: number): Promise<ListedResources | null> {
  const declared = client.getServerCapabilities()?.resources
  if (!declared) return null
  const { ResourceSchema, ResourceTemplateSchema } = await import('@modelcontextprotocol/sdk/types.js')
  // A server may answer only one of the two (a low-level SDK `Server` with just the handlers it needs): "method not found" is an empty list.
  const deadline = Date.now() + timeoutMs
  const problems: string[] = []
  const resources = check(
    await listPages(client, 'resources/list', 'resources', { timeoutMs, max: MAX_ENTRIES, noneIfUnanswered: true }),
    ResourceSchema,
    'resource',
    (r) => r.uri,
    resourceProblem,
    problems,
  )
  const templates = check(
    // One deadline for both lists.
    await listPages(client, 'resources/templates/list', 'resourceTemplates', {
      timeoutMs: Math.max(1, deadline - Date.now()),
      max: MAX_ENTRIES,
      noneIfUnanswered: true,
    }),
    ResourceTemplateSchema,
    'resource template',
    (t) => t.uriTemplate,
    templateProblem,
    problems,
  )
  return { resources: resources as Resource[], templates: templates as ResourceTemplate[], subscribe: declared.subscribe === true, problems }
}

function check<T>(
  raw: unknown[],
  schema: z.ZodType<T>,
  what: string,
  id: (entry: T) => string,
  refused: (id: string) => string | null,
  problems: string[],
): T[] {
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
    const why = refused(name)
    if (why) problems.push(`${what} "${name}": ${why}; skipped`)
    else if (ids.has(name)) problems.push(`${what} "${name}" is listed twice; the first is kept`)
    else {
      ids.add(name)
      // The parse keeps unknown keys (loose schemas): the entry is served as the server wrote it.
      kept.push(item as T)
    }
  })
  return kept
}
