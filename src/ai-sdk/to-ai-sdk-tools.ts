import type { ModelMessage, PrepareStepFunction, ToolCallRepairFunction, ToolSet } from 'ai'
import type { ErrorCode } from '../errors/index.js'
// The AI SDK's own tool helpers ('ai' re-exports them): far lighter to load than 'ai', which the library doesn't need until a model runs.
import { jsonSchema, tool } from '@ai-sdk/provider-utils'
import type { Plane } from '../plane/index.js'
import { checkJsonShape, type Caller, type CallerClient, type Envelope } from '../skill/index.js'
import { callerTools, callTool, failureText, resolveToolOptions, type ResolvedToolOptions, type ToolAdapterOptions } from './call-tool.js'
import { connectLink, pendingApproval, type CallableSkill, type ConnectLink } from '../access/index.js'
import { DISCOVER_KEY, foundKeys } from '../discovery/index.js'
import { SkillplaneError } from '../errors/index.js'

export interface AISDKToolOptions extends ToolAdapterOptions {
  /**
   * The person who answers the AI SDK's tool-approval requests in your app. When given, their
   * approval of a tool call is recorded as their decision on skillplane's approval request, so a
   * skill that needs one approver runs at once; without it, skillplane's approvers decide.
   */
  approver?: Caller
  /** Each tool call that went through the pipeline, for linking a model's calls to audit rows. */
  onCall?: (event: { toolCallId: string; toolName: string; envelope: Envelope }) => void
  /** A tool call that needs a human: skillplane's approval request for it. */
  onApprovalRequest?: (event: { toolCallId: string; toolName: string; approvalId: string }) => void
  /**
   * A tool call that can't run until the person connects an account (`needs_auth` with a link):
   * given this, such a call goes through the AI SDK's approval flow too, and `link` is where the
   * person connects. Answer its approval request once they have (the call then runs); without it,
   * the call runs and the model reads the refusal, link included.
   */
  onConnectRequest?: (event: { toolCallId: string; toolName: string; key: string; link: ConnectLink; message: string }) => void
  /**
   * How a tool call's skill reaches its caller (an imported MCP server asking for a model completion
   * or a person's input): the caller channel for that one call. Without it, such requests are refused.
   */
  client?: (event: { toolCallId: string; toolName: string }) => CallerClient
}

/** Thrown by a tool's execute when the pipeline refuses or fails the call; the model reads the message. */
export class SkillCallError extends SkillplaneError {
  constructor(
    message: string,
    override readonly code: ErrorCode,
    readonly callId: string,
    readonly approvalId?: string,
  ) {
    super(message)
    this.name = 'SkillCallError'
  }
}

/** What generateText, streamText or a ToolLoopAgent take for a caller's tools: spread it into their settings. */
export interface AISDKToolLoop {
  /** Every tool the caller may call (with discover_skills when discovering). */
  tools: ToolSet
  /** Discovering: the tools of the first step, the core set. */
  activeTools?: string[]
  /** Discovering: each step's tools, the core set, the caller's most used skills, and the tools discover_skills found so far in the messages. */
  prepareStep?: PrepareStepFunction<ToolSet>
  /** Tool calls the AI SDK can't parse only for a key skillplane refuses too ("__proto__"): the pipeline refuses them by name, audited. */
  experimental_repairToolCall: ToolCallRepairFunction<ToolSet>
}

/**
 * The skills a caller may call as AI SDK tools. `needsApproval` asks skillplane's gate (policy and
 * the skill's own rule, for these arguments) and files the approval request when a human must
 * decide, which puts the call through the AI SDK's approval flow (so does an account to connect,
 * with `onConnectRequest`); `execute` runs the pipeline.
 * For a large catalog, use toAISDKToolLoop: this set then holds every tool, and shows them all.
 */
export function toAISDKTools(plane: Plane, given: AISDKToolOptions): ToolSet {
  return toAISDKToolLoop(plane, given).tools
}

/**
 * The caller's tools and, for a large catalog (see `discovery`), the `activeTools` and
 * `prepareStep` that show the model only the core set plus what discover_skills has found.
 */
export function toAISDKToolLoop(plane: Plane, given: AISDKToolOptions): AISDKToolLoop {
  const options = { ...given, ...resolveToolOptions(plane, given) }
  const { all, discovering, core } = callerTools(plane, options)
  const tools: ToolSet = {}
  // Tool calls the AI SDK put to its user, with the request they were asked about: executing one
  // means that user approved that request, and no other.
  const asked = new Map<string, string>()
  for (const [name, entry] of all) {
    tools[name] = tool({
      description: entry.description,
      inputSchema: jsonSchema<Record<string, unknown>>(entry.inputSchema as Parameters<typeof jsonSchema>[0]),
      needsApproval: async (args, { toolCallId, messages }) => {
        const gate = await callTool(plane, entry, args, { ...options, gateOnly: true })
        const link = options.onConnectRequest && connectLink(gate)
        if (link && !gate.ok) {
          asked.delete(toolCallId)
          options.onConnectRequest!({ toolCallId, toolName: name, key: entry.skill.key, link, message: gate.error.message })
          return true
        }
        // Gated by an approval: one to ask for, or one already granted (the AI SDK asks again on resume).
        const approvalId = gate.ok ? (gate.data as { approvalId: string | null }).approvalId : pendingApproval(gate)
        if (!approvalId) {
          asked.delete(toolCallId)
          // A call the app approved once its account was connected: the AI SDK asks again before running it, and
          // would refuse it as one that needs no approval. It runs, and the pipeline decides it.
          return options.onConnectRequest !== undefined && approvedBefore(messages, toolCallId)
        }
        asked.set(toolCallId, approvalId)
        options.onApprovalRequest?.({ toolCallId, toolName: name, approvalId })
        return true
      },
      execute: async (args, { abortSignal, toolCallId }) => {
        const callOptions = { ...options, signal: abortSignal ?? options.signal, callerClient: options.client?.({ toolCallId, toolName: name }) }
        let envelope = await callTool(plane, entry, args, callOptions)
        const approvalId = pendingApproval(envelope)
        // Executing a call the AI SDK asked about means its user approved: that person decides here too.
        if (approvalId && options.approver && approvalId === asked.get(toolCallId)) {
          const decided = await plane.approvals.decide({
            id: approvalId,
            caller: options.approver,
            decision: 'approve',
            comment: 'approved in the AI SDK tool-approval flow',
          })
          if (decided.ok) envelope = await callTool(plane, entry, args, { ...callOptions, approvalId })
        }
        asked.delete(toolCallId)
        options.onCall?.({ toolCallId, toolName: name, envelope })
        if (envelope.ok) return envelope.data
        throw new SkillCallError(failureText(envelope), envelope.error.code, envelope.callId, pendingApproval(envelope))
      },
    })
  }
  const experimental_repairToolCall = refuseHiddenKeys(plane, options, all)
  if (!discovering) return { tools, experimental_repairToolCall }
  return { tools, activeTools: core, prepareStep: activeStep(plane, options, tools, core), experimental_repairToolCall }
}

/**
 * The AI SDK refuses tool input with a "__proto__" key as unparsable JSON, before any tool runs and
 * with its own words. Such a call goes to the pipeline as sent, which refuses it as invalid_input
 * naming the key, audited like any call; the model reads that refusal. Anything else stays refused.
 */
function refuseHiddenKeys(plane: Plane, options: AISDKToolOptions & ResolvedToolOptions, all: Map<string, CallableSkill>): ToolCallRepairFunction<ToolSet> {
  return async ({ toolCall, error }) => {
    const entry = all.get(toolCall.toolName)
    if (!entry) return null
    // The AI SDK is running a model when it repairs a call, so it is loaded already.
    const { InvalidToolInputError } = await import('ai')
    if (!InvalidToolInputError.isInstance(error)) return null
    let sent: unknown
    try {
      sent = JSON.parse(toolCall.input)
    } catch {
      return null
    }
    if (typeof sent !== 'object' || sent === null || Array.isArray(sent) || !checkJsonShape(sent, { forbidProtoKey: true })) return null
    const envelope = await callTool(plane, entry, sent as Record<string, unknown>, options)
    options.onCall?.({ toolCallId: toolCall.toolCallId, toolName: toolCall.toolName, envelope })
    // The pipeline refuses such input before it runs anything: what it said is what the model reads.
    throw new SkillCallError(failureText(envelope), envelope.ok ? 'invalid_input' : envelope.error.code, envelope.callId)
  }
}

/** Whether the conversation holds the app's approval of this tool call (the AI SDK's tool-approval-response). */
function approvedBefore(messages: ModelMessage[], toolCallId: string): boolean {
  const requests = new Set<string>()
  for (const message of messages) {
    if (typeof message.content === 'string') continue
    for (const part of message.content) {
      if (part.type === 'tool-approval-request' && part.toolCallId === toolCallId) requests.add(part.approvalId)
      if (part.type === 'tool-approval-response' && part.approved && requests.has(part.approvalId)) return true
    }
  }
  return false
}

/** Each step's active tools: the core set, the caller's most used skills (read once), and what discover_skills found in the messages. */
function activeStep(plane: Plane, options: ResolvedToolOptions, tools: ToolSet, core: string[]): PrepareStepFunction<ToolSet> {
  let mostUsed: Promise<string[]> | undefined
  return async ({ messages }) => {
    mostUsed ??= plane.skills.discovery.mostUsed(options.caller.id).catch((error: unknown) => {
      plane.logger.warn({ err: error }, "reading the caller's most used skills failed; its steps start with the core set alone")
      return []
    })
    const wanted = new Set([...core, ...(await mostUsed), ...foundIn(messages)])
    // Tool names are skill keys. The set as it is now: an app (a test run) may have taken tools out.
    return { activeTools: Object.keys(tools).filter((name) => wanted.has(name)) }
  }
}

/** The skills discover_skills found in a conversation, from its results in the tool messages. */
function foundIn(messages: ModelMessage[]): string[] {
  const found: string[] = []
  for (const message of messages) {
    if (message.role !== 'tool') continue
    for (const part of message.content) {
      if (part.type === 'tool-result' && part.toolName === DISCOVER_KEY && part.output.type === 'json') found.push(...foundKeys(part.output.value))
    }
  }
  return found
}
