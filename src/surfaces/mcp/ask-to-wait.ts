import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { RequestId } from '@modelcontextprotocol/sdk/types.js'
import type { Envelope } from '../../skill/index.js'

export interface AskToWait {
  /** The tool call's request: the question travels with it. */
  requestId: RequestId
  /** The client's cancellation of the tool call. */
  signal: AbortSignal
  /** The plane's clock, against the approval request's `expiresAt`. */
  now: string
  /** The longest the call waits for a decision (approvals.waitTimeoutMs). */
  waitMs: number
}

/**
 * Ask the person at the client whether to hold a call refused with approval_required open until an
 * approver decides. The question lasts while the client waits, until the call's wait (`waitMs`) ends or
 * the approval request expires, whichever comes first (not the SDK's default of 60 s); unanswered,
 * failed or declined: false.
 */
export async function askToWait(server: Server, refused: Envelope, options: AskToWait): Promise<boolean> {
  if (refused.ok) return false
  const left = Date.parse(String(refused.error.details?.expiresAt)) - Date.parse(options.now)
  // Every approval_required names its request's expiresAt (approvalDetails); an unreadable one is no reason to hold the call.
  if (!(left > 0)) return false
  try {
    const answer = await server.elicitInput(
      {
        message: `${refused.error.message}\n\nWait here for an approver's decision? The call runs as soon as it is approved.`,
        requestedSchema: {
          type: 'object',
          properties: { wait: { type: 'boolean', title: 'Wait for the decision', default: true } },
          required: ['wait'],
        },
      },
      { relatedRequestId: options.requestId, signal: options.signal, timeout: Math.min(left, options.waitMs) },
    )
    return answer.action === 'accept' && answer.content?.wait === true
  } catch {
    // A client that fails the elicitation, or doesn't answer in time, gets the plain answer: approval required.
    return false
  }
}
