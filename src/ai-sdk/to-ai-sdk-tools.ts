import { jsonSchema, tool, type ToolSet } from 'ai'
import type { Plane } from '../plane/index.js'
import type { Caller, Envelope } from '../skill/index.js'
import { callTool, failureText, resolveToolOptions, toolIndex, type ToolAdapterOptions } from './call-tool.js'
import { pendingApproval } from '../access/index.js'

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
}

/** Thrown by a tool's execute when the pipeline refuses or fails the call; the model reads the message. */
export class SkillCallError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly callId: string,
    readonly approvalId?: string,
  ) {
    super(message)
    this.name = 'SkillCallError'
  }
}

/**
 * The skills a caller may call as AI SDK tools. `needsApproval` asks skillplane's gate (policy and
 * the skill's own rule, for these arguments) and files the approval request when a human must
 * decide, which puts the call through the AI SDK's approval flow; `execute` runs the pipeline.
 */
export function toAISDKTools(plane: Plane, given: AISDKToolOptions): ToolSet {
  const options = { ...given, ...resolveToolOptions(plane, given) }
  const tools: ToolSet = {}
  // Tool calls the AI SDK put to its user, with the request they were asked about: executing one
  // means that user approved that request, and no other.
  const asked = new Map<string, string>()
  for (const [name, entry] of toolIndex(plane, options)) {
    tools[name] = tool({
      description: entry.description,
      inputSchema: jsonSchema<Record<string, unknown>>(entry.inputSchema as Parameters<typeof jsonSchema>[0]),
      needsApproval: async (args, { toolCallId }) => {
        const gate = await callTool(plane, entry, args, { ...options, gateOnly: true })
        // Gated by an approval: one to ask for, or one already granted (the AI SDK asks again on resume).
        const approvalId = gate.ok ? (gate.data as { approvalId: string | null }).approvalId : pendingApproval(gate)
        if (!approvalId) {
          asked.delete(toolCallId)
          return false
        }
        asked.set(toolCallId, approvalId)
        options.onApprovalRequest?.({ toolCallId, toolName: name, approvalId })
        return true
      },
      execute: async (args, { abortSignal, toolCallId }) => {
        const callOptions = { ...options, signal: abortSignal ?? options.signal }
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
  return tools
}
