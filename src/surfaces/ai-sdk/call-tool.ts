import type { Skillplane } from '../../plane/skillplane.js'
import type { Caller, Envelope } from '../../skill/skill-types.js'
import { approvalText, callableSkills, pendingApproval, toSkillInput, type CallableSkill } from '../callable-skills.js'

export interface ToolAdapterOptions {
  /** Who calls: usually an agent (`{ kind: 'agent', ... }`), so that it sees only its bound skills. */
  caller: Caller
  /** For a user caller: the agent the calls are made for (id, name or alias). */
  agent?: string
  /** Instruction-skill activations and approvals are kept per conversation. */
  conversationId?: string
  signal?: AbortSignal
  /** The person the agent acts for: their role and policies apply too, and they can't approve its calls. */
  onBehalfOf?: Caller
}

/** The caller's tools by name, listed once when the adapter is made (the pipeline re-checks each call). */
export function toolIndex(plane: Skillplane, options: ToolAdapterOptions): Map<string, CallableSkill> {
  const agentId = options.caller.kind === 'agent' ? options.caller.agentId : options.agent ? (plane.catalog.resolveAgent(options.agent) ?? null) : null
  return new Map(callableSkills(plane, options.caller, agentId).map((entry) => [entry.skill.toolName, entry]))
}

/**
 * Run a model's tool call through the pipeline. A repeated call resumes the caller's open approval
 * request for exactly these arguments, so a model that calls again after approval gets its result.
 */
export async function callTool(
  plane: Skillplane,
  entry: CallableSkill,
  args: Record<string, unknown>,
  options: ToolAdapterOptions & { approvalId?: string; gateOnly?: boolean },
): Promise<Envelope> {
  const { input, edgeId } = toSkillInput(entry, args)
  return plane.invoke(entry.skill.key, input, {
    caller: options.caller,
    agent: options.agent ?? null,
    conversationId: options.conversationId ?? null,
    edgeId,
    signal: options.signal,
    resume: true,
    onBehalfOf: options.onBehalfOf ?? null,
    ...(options.approvalId && { approvalId: options.approvalId }),
    ...(options.gateOnly && { gateOnly: true }),
  })
}

/** A failed envelope as the one line a model reads (with what to do next for an approval). */
export function failureText(envelope: Envelope): string {
  if (envelope.ok) return ''
  const { code, message, details } = envelope.error
  const approvalId = pendingApproval(envelope)
  return approvalId
    ? `${approvalText(details!, approvalId)} Tell the user a human must approve request ${approvalId}; after that, call this tool again with the same arguments.`
    : `${code}: ${message}`
}

/** Tool call arguments as an object, whether they arrive parsed or as JSON text. */
export function parseArguments(raw: unknown): { ok: true; args: Record<string, unknown> } | { ok: false; message: string } {
  let value = raw
  if (typeof raw === 'string') {
    try {
      value = raw.trim() === '' ? {} : JSON.parse(raw)
    } catch (error) {
      return { ok: false, message: `invalid_input: the tool arguments are not JSON: ${(error as Error).message}` }
    }
  }
  if (value === undefined || value === null) return { ok: true, args: {} }
  if (typeof value !== 'object' || Array.isArray(value)) return { ok: false, message: 'invalid_input: the tool arguments must be a JSON object' }
  return { ok: true, args: value as Record<string, unknown> }
}
