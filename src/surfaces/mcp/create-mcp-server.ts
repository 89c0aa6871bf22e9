import { inCallerTrace, readOrigin } from './call-origin.js'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { z } from 'zod'
import {
  CallToolRequestParamsSchema,
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
  type ProgressToken,
  type ServerNotification,
} from '@modelcontextprotocol/sdk/types.js'
import type { Skillplane } from '../../agents/index.js'
import type { Caller, Envelope } from '../../skill/index.js'
import { subjectsOf, type InvokeOptions } from '../../runtime/index.js'
import { VERSION } from '../../version.js'
import { mcpToolList, type McpToolList } from './mcp-tool-list.js'
import { CALL_SKILL, readCallSkill } from './call-skill-tool.js'
import { DISCOVER_KEY, foundKeys } from '../../discovery/index.js'
import { toCallResult } from './to-call-result.js'
import { connectLink, toSkillInput } from '../../access/index.js'
import { connectInCall } from './connect-in-call.js'
import { askToWait } from './ask-to-wait.js'
import { serveSkillResources } from './skill-resources.js'
import { serveMcpPrompts } from './mcp-prompts.js'
import { serveMcpCompletions, skillTemplates } from './mcp-completions.js'
import { importedResources } from './imported-resources.js'
import { sessionClient, sessionLogging, type SessionLevel } from './session-client.js'

// The SDK's schema copies the arguments into a new object, which silently drops an own "__proto__"
// key: the handler takes them as sent (the SDK still checks them), and the pipeline refuses the key by name.
const CallToolAsSent = CallToolRequestSchema.extend({ params: CallToolRequestParamsSchema.extend({ arguments: z.unknown().optional() }) })

export interface McpServerOptions {
  caller: Caller
  /** Instruction-skill activations and approvals are kept per conversation: one MCP session. */
  conversationId: string
  /** The session's logging level (a re-opened session's stored one), and who keeps the one its client sets. */
  logging?: SessionLevel
}

/**
 * An MCP server (official SDK) for one caller: tools/list is what that caller may call (past
 * `discovery.toolThreshold`, a core set that grows with what discover_skills finds), tools/call
 * runs the pipeline, and a change to that list is announced with notifications/tools/list_changed.
 */
export function createMcpServer(plane: Skillplane, options: McpServerOptions): Server {
  const { caller } = options
  const server = new Server(
    { name: 'skillplane', version: VERSION },
    {
      capabilities: {
        tools: { listChanged: true },
        resources: { listChanged: true, subscribe: true },
        prompts: { listChanged: true },
        completions: {},
        logging: {},
      },
    },
  )
  const logging = sessionLogging(server, options.logging)
  // The list is rebuilt only after a change; the pipeline re-checks every call anyway.
  let tools: McpToolList | null = null
  let announced = ''
  // Past the threshold the list also holds the caller's most used skills (read once per session)
  // and the skills its discover_skills calls found in this session.
  let mostUsed: readonly string[] = []
  let mostUsedRead: Promise<void> | undefined
  const found = new Set<string>()
  const current = () => (tools ??= mcpToolList(plane, caller, { mostUsed, found }))
  const signature = (list: McpToolList) => JSON.stringify(list.listed)
  const listed = async () => {
    if (current().discovering) {
      mostUsedRead ??= plane.skills.discovery.mostUsed(caller.id).then(
        (keys) => {
          mostUsed = keys
          tools = null
        },
        (error: unknown) => plane.logger.warn({ err: error }, 'reading the most used skills of an MCP caller failed; listing the core set without them'),
      )
      await mostUsedRead
    }
    return current()
  }
  // Only a list the client has seen can change for it.
  const announceChange = () => {
    if (announced === '' || signature(current()) === announced) return
    announced = signature(current())
    server.sendToolListChanged().catch(() => {})
  }

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const list = await listed()
    announced = signature(list)
    return { tools: list.listed }
  })

  server.setRequestHandler(CallToolAsSent, async (request, extra): Promise<CallToolResult> => {
    const list = current()
    let name = request.params.name
    let args = (request.params.arguments ?? {}) as Record<string, unknown>
    if (list.discovering && name === CALL_SKILL) {
      const parsed = readCallSkill(args)
      if (!parsed.ok) return { isError: true, content: [{ type: 'text', text: parsed.message }], _meta: { 'skillplane/error': 'invalid_input' } }
      // Keys are tool names: call_skill takes the same path as a call of the tool itself.
      ;({ key: name, args } = parsed)
    }
    // Any tool the caller may call runs, listed or not; one it may not still goes through the
    // pipeline, so the refusal is audited.
    const entry = list.callable.get(name) ?? null
    const { input, edgeId } = entry ? toSkillInput(entry, args) : { input: args, edgeId: null }
    const key = entry?.skill.key ?? name
    const { origin, parent } = readOrigin(request.params._meta)
    const invokeOptions: InvokeOptions = {
      caller,
      conversationId: options.conversationId,
      edgeId,
      signal: extra.signal,
      approval: { mode: 'resume' },
      onProgress: progressTo(request.params._meta?.progressToken, extra.sendNotification),
      origin,
      client: sessionClient(server, extra, logging),
    }
    const invoke = (how: InvokeOptions) => inCallerTrace(parent, name, () => plane.invoke(key, input, how))
    let envelope = await invoke(invokeOptions)
    const link = connectLink(envelope)
    // A link without an origin (no http.publicUrl, and no server of this database ever listened) cannot be opened from a client.
    if (link && URL.canParse(link.url) && server.getClientCapabilities()?.elicitation?.url) {
      envelope = await connectInCall(server, plane, envelope, link, () => invoke(invokeOptions), {
        requestId: extra.requestId,
        signal: extra.signal,
        person: caller.kind === 'user' ? caller.name : null,
        waitMs: plane.config.approvals.waitTimeoutMs,
      })
    }
    if (
      isApprovalRequired(envelope) &&
      server.getClientCapabilities()?.elicitation &&
      (await askToWait(server, envelope, {
        requestId: extra.requestId,
        signal: extra.signal,
        now: plane.now(),
        waitMs: plane.config.approvals.waitTimeoutMs,
      }))
    ) {
      envelope = await invoke({ ...invokeOptions, approval: { mode: 'resume', wait: true } })
    }
    if (envelope.ok && key === DISCOVER_KEY) {
      const before = found.size
      for (const skill of foundKeys(envelope.data)) found.add(skill)
      if (found.size > before) {
        tools = null
        announceChange()
      }
    }
    return toCallResult(envelope, entry)
  })

  const imported = importedResources(server, plane, {
    caller,
    conversationId: options.conversationId,
    mayCall: (key) => current().callable.has(key),
    skillListed: (uri) => skillResources.lists(uri),
    skillTemplates: () => skillTemplates(plane, caller, (skill) => current().callable.has(skill)),
  })
  const skillResources = serveSkillResources(server, plane, {
    caller,
    conversationId: options.conversationId,
    mayCall: (tool) => current().callable.has(tool),
    imported,
    clientFor: (extra) => sessionClient(server, extra, logging),
  })
  let resourcesShown = skillResources.signature()
  const prompts = serveMcpPrompts(server, plane, {
    caller,
    conversationId: options.conversationId,
    mayCall: (skill) => current().callable.has(skill),
    clientFor: (extra) => sessionClient(server, extra, logging),
  })
  let promptsShown = prompts.signature()
  serveMcpCompletions(server, plane, {
    caller,
    mayCall: (skill) => current().callable.has(skill),
    prompts: () => prompts.list(),
    templates: () => imported.templates(),
  })

  const unsubscribe = plane.skills.onChanged(() => {
    tools = null
    announceChange()
    const resources = skillResources.signature()
    if (resources !== resourcesShown) {
      resourcesShown = resources
      server.sendResourceListChanged().catch(() => {})
    }
    const promptList = prompts.signature()
    if (promptList !== promptsShown) {
      promptsShown = promptList
      server.sendPromptListChanged().catch(() => {})
    }
    imported.catalogChanged()
  })
  // A per-person server's lists are the person's own: only their sessions hear that theirs changed.
  const person = subjectsOf(caller, null, null).user
  const unlisten = plane.sources.onMcpPersonListChanged(({ subject, kind, skill }) => {
    if (subject !== person || !current().callable.has(skill)) return
    ;(kind === 'resources' ? server.sendResourceListChanged() : server.sendPromptListChanged()).catch(() => {})
  })
  const onclose = server.onclose
  server.onclose = () => {
    unlisten()
    unsubscribe()
    imported.close()
    onclose?.()
  }
  return server
}

/**
 * The client's progress notifications for a call that asked for them (a progressToken), each
 * further along than the last, as the specification requires; none for a call that didn't ask.
 */
function progressTo(token: ProgressToken | undefined, send: (notification: ServerNotification) => Promise<void>): InvokeOptions['onProgress'] {
  if (token === undefined) return undefined
  let last = -Infinity
  return ({ progress, total, message }) => {
    if (progress <= last) return
    last = progress
    send({
      method: 'notifications/progress',
      params: { progressToken: token, progress, ...(total !== undefined && { total }), ...(message !== undefined && { message }) },
    }).catch(() => {})
  }
}

function isApprovalRequired(envelope: Envelope): boolean {
  return !envelope.ok && envelope.error.code === 'approval_required'
}
