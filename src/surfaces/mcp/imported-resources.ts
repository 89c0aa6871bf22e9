import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import {
  ErrorCode,
  ListResourceTemplatesRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplate,
} from '@modelcontextprotocol/sdk/types.js'
import type { Skillplane } from '../../agents/index.js'
import type { Caller, CallerClient } from '../../skill/index.js'
import { subjectsOf } from '../../runtime/index.js'
import { uriTooLong } from '../../sources/mcp/index.js'
import { notFound, RequestError, unwrap } from './request-error.js'

const LISTS = 'resources/list and resources/templates/list'
/** The most resources one /mcp session may subscribe to: each holds an upstream subscription and a listener. */
export const MAX_SUBSCRIPTIONS = 1000

export interface ImportedResourceOptions {
  caller: Caller
  conversationId: string
  /** Whether the caller may call this skill now (its tool list holds it). */
  mayCall(key: string): boolean
  /** Whether `uri` is an instruction skill's resource this caller lists now. */
  skillListed(uri: string): boolean
  /** The instruction skills' own templates this caller may use, listed first. */
  skillTemplates(): ResourceTemplate[]
}

export interface ImportedResources {
  /** The imported resources this caller may read: the shared servers', then its person's own on per-person servers. */
  list(): Promise<Resource[]>
  /** The imported templates this caller may use, in the same order. */
  templates(): Promise<Array<ResourceTemplate & { server: string; skill: string }>>
  /** resources/read of a URI that is not an instruction skill's: a call of its server's read skill. */
  read(uri: string, signal: AbortSignal, client: CallerClient): Promise<ReadResourceResult>
  /** What the shared servers' lists show this caller, and which per-person servers' lists it has (a change of a person's own lists is announced as it happens). */
  signature(): string
  /** The catalog changed: instruction skills' resources a session subscribed to may have changed with it. */
  catalogChanged(): void
  /** The session is over: its subscriptions go (the last listener of a URI unsubscribes upstream). */
  close(): void
}

/** A URI too long to match against templates is refused before any matching. */
function tooLong(uri: string): void {
  const why = uriTooLong(uri)
  if (why) throw new RequestError(ErrorCode.InvalidParams, `resource ${JSON.stringify(uri.slice(0, 80))}…: ${why}`, { length: uri.length })
}

/**
 * Imported MCP servers' resources and templates on /mcp, for a caller allowed their server's read
 * skill (a per-person server's: the session's own person's, as their own upstream session lists
 * them), with subscriptions: resources/subscribe of an imported URI listens to its server (one
 * upstream subscription per URI shared by every session, per person for a per-person server), and its updates reach the sessions that
 * subscribed and may still read it. A subscription reads nothing, so it is gated but not audited;
 * every read that follows an update is a call, audited.
 */
export function importedResources(server: Server, plane: Skillplane, options: ImportedResourceOptions): ImportedResources {
  const { caller } = options
  // The person behind the session's key: per-person servers' lists are theirs alone (an agent's own key has none).
  const subject = subjectsOf(caller, null, null).user
  const shared = () => plane.sources.mcpResources().filter((set) => options.mayCall(set.skill))
  const readable = async () => [...shared(), ...(await plane.sources.mcpPersonResources(subject, options.mayCall))]
  // The URI's owner (whoever the caller), when this caller may read it: a URI it can't is one that doesn't exist for it.
  const ownerFor = async (uri: string) =>
    plane.sources.mcpResourceOwner(uri, options.mayCall) ??
    plane.sources.mcpResourceOwner(uri, options.mayCall, await plane.sources.mcpPersonResources(subject, options.mayCall))
  const subscriptions = new Map<string, Promise<{ close(): void } | null>>()
  const skillSubscriptions = new Set<string>()
  let closed = false

  const list = async (): Promise<Resource[]> => (await readable()).flatMap((set) => set.resources)
  const templates = async () => (await readable()).flatMap((set) => set.templates.map((t) => ({ ...t, server: set.server, skill: set.skill })))

  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [...options.skillTemplates(), ...(await templates()).map(({ server: _, skill: __, ...template }) => template)],
  }))

  server.setRequestHandler(SubscribeRequestSchema, async (request, extra) => {
    const { uri } = request.params
    const full = () => {
      if (!subscriptions.has(uri) && !skillSubscriptions.has(uri) && subscriptions.size + skillSubscriptions.size >= MAX_SUBSCRIPTIONS) {
        throw new RequestError(
          ErrorCode.InvalidRequest,
          `resource ${JSON.stringify(uri)}: this session holds ${MAX_SUBSCRIPTIONS} subscriptions, the most one session may; unsubscribe from one first`,
          { uri },
        )
      }
    }
    full()
    if (options.skillListed(uri)) {
      // An instruction skill's files change with the catalog (a reload, an install): updates come with its changes.
      skillSubscriptions.add(uri)
      return {}
    }
    tooLong(uri)
    const owner = await ownerFor(uri)
    if (!owner) throw notFound(uri, `${LISTS} show what this caller may subscribe to`)
    if (!owner.subscribe)
      throw new RequestError(ErrorCode.InvalidParams, `resource ${JSON.stringify(uri)}: MCP server "${owner.server}" takes no subscriptions`, { uri })
    if (subscriptions.has(uri)) {
      await subscriptions.get(uri)
      return {}
    }
    // Again after the await: subscribes in flight together (a JSON-RPC batch) were all checked against the same count.
    full()
    const forward = (updated: string) => {
      // Only while this caller may still read it from that server (a binding removed, a DENY set since: nothing).
      if (closed) return
      const send = (now: { skill: string } | null) => {
        if (now?.skill === owner.skill && !closed) server.sendResourceUpdated({ uri: updated }).catch(() => {})
      }
      // A shared server's URI is decided at once, so its updates keep their order with the catalog's.
      const sharedOwner = plane.sources.mcpResourceOwner(updated, options.mayCall)
      if (sharedOwner) send(sharedOwner)
      else void ownerFor(updated).then(send, () => {})
    }
    const opening = plane.sources.subscribeMcpResource(owner.server, uri, { subject, signal: extra.signal }, forward).then(
      (subscription) => {
        // The session closed (or unsubscribed) while the server took it.
        if (closed || subscriptions.get(uri) !== opening) subscription.close()
        return subscription
      },
      (error: unknown) => {
        if (subscriptions.get(uri) === opening) subscriptions.delete(uri)
        const code = (error as { code?: unknown }).code
        throw new RequestError(
          ErrorCode.InternalError,
          `resource ${JSON.stringify(uri)}: ${typeof code === 'string' ? `${code}: ` : ''}${(error as Error).message}`,
          {
            uri,
          },
        )
      },
    )
    subscriptions.set(uri, opening)
    await opening
    return {}
  })

  server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    const { uri } = request.params
    skillSubscriptions.delete(uri)
    const opening = subscriptions.get(uri)
    subscriptions.delete(uri)
    ;(await opening?.catch(() => null))?.close()
    return {}
  })

  return {
    list,
    templates,
    async read(uri, signal, client) {
      tooLong(uri)
      const owner = await ownerFor(uri)
      if (!owner) throw notFound(uri, `${LISTS} show what this caller may read (instruction skills' are skill://<skill>/SKILL.md and skill://<skill>/<path>)`)
      const envelope = await plane.invoke(owner.skill, { uri }, { caller, conversationId: options.conversationId, signal, client })
      const { contents } = unwrap(envelope, `resource ${JSON.stringify(uri)}`, (why, callId) => notFound(uri, why, callId)) as ReadResourceResult
      // The audit row of the read, as a tool result names its call.
      return { contents, _meta: { 'skillplane/callId': envelope.callId } }
    },
    signature: () =>
      JSON.stringify([
        shared().map((set) => [set.resources.map((r) => r.uri), set.templates.map((t) => t.uriTemplate)]),
        // A per-person server's read skill allowed or denied shows or hides the person's own list.
        subject === null ? [] : plane.sources.mcpPersonSkills('resources').filter(options.mayCall),
      ]),
    catalogChanged() {
      for (const uri of skillSubscriptions) if (options.skillListed(uri)) server.sendResourceUpdated({ uri }).catch(() => {})
    },
    close() {
      closed = true
      for (const opening of subscriptions.values()) void opening.then((s) => s?.close()).catch(() => {})
      subscriptions.clear()
    },
  }
}
