import { jsonSchema, tool, type ToolSet } from 'ai'
import type { Skillplane } from '../../plane/skillplane.js'
import type { Caller } from '../../skill/skill-types.js'
import { callTool, failureText, toolIndex, type ToolAdapterOptions } from './call-tool.js'

export interface AISDKToolOptions extends ToolAdapterOptions {
  /**
   * The person who answers the AI SDK's tool-approval requests in your app. When given, their
   * approval of a tool call is recorded as their decision on skillplane's approval request, so a
   * skill that needs one approver runs at once; without it, skillplane's approvers decide.
   */
  approver?: Caller
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
 * The skills a caller may call as AI SDK tools. `execute` runs the pipeline; `needsApproval` is
 * true where skillplane's policy says ASK, which puts the call through the AI SDK's approval flow.
 */
export function toAISDKTools(plane: Skillplane, options: AISDKToolOptions): ToolSet {
  const tools: ToolSet = {}
  for (const [name, entry] of toolIndex(plane, options)) {
    tools[name] = tool({
      description: entry.description,
      inputSchema: jsonSchema<Record<string, unknown>>(entry.inputSchema as Parameters<typeof jsonSchema>[0]),
      needsApproval: entry.decision === 'ASK',
      execute: async (args, { abortSignal }) => {
        const callOptions = { ...options, signal: abortSignal ?? options.signal }
        let envelope = await callTool(plane, entry, args, callOptions)
        const approvalId = !envelope.ok ? envelope.error.details?.approvalId : undefined
        // Executing an ASK tool means the AI SDK's approval was granted: that person decides here too.
        if (!envelope.ok && envelope.error.code === 'approval_required' && options.approver && typeof approvalId === 'string' && entry.decision === 'ASK') {
          const decided = await plane.approvals.decide({ id: approvalId, caller: options.approver, decision: 'approve', comment: 'approved in the AI SDK tool-approval flow' })
          if (decided.ok) envelope = await callTool(plane, entry, args, { ...callOptions, approvalId })
        }
        if (envelope.ok) return envelope.data
        const pending = envelope.error.details?.approvalId
        throw new SkillCallError(failureText(envelope), envelope.error.code, envelope.callId, typeof pending === 'string' ? pending : undefined)
      },
    })
  }
  return tools
}
