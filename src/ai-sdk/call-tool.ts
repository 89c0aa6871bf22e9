import type { Plane } from '../plane/index.js'
import type { Caller, CallerClient, Envelope } from '../skill/index.js'
import { approvalText, callableSkills, pendingApproval, toSkillInput, type CallableSkill } from '../access/index.js'
import { agentCaller } from '../registry/index.js'
import { DISCOVER_KEY, largeCatalog, type DiscoveryMode } from '../discovery/index.js'
import { SkillplaneError } from '../errors/index.js'

export interface ToolAdapterOptions {
  /**
   * Who calls. Without it, the agent named by `agent` calls as itself (its bound skills, audited
   * under its name); a person is `{ kind: 'user', ... }` or `await plane.people.keys.authenticate(key)`.
   */
  caller?: Caller
  /** The agent (id, name or alias): the caller itself when no caller is given, else the agent a person's calls are for. */
  agent?: string
  /** Instruction-skill activations and approvals are kept per conversation. */
  conversationId?: string
  signal?: AbortSignal
  /** The person the agent acts for: their role and policies apply too, and they can't approve its calls. */
  onBehalfOf?: Caller
  /**
   * A large catalog: `'auto'` (the default) past `discovery.toolThreshold` callable skills, `true`
   * always, `false` never. Discovering, the model is given discover_skills and the core set, and
   * finds the rest.
   */
  discovery?: DiscoveryMode
}

/** Adapter options with the caller settled and the agent known. */
export type ResolvedToolOptions = Omit<ToolAdapterOptions, 'caller'> & { caller: Caller; agentId: string | null }

/** Thrown when an adapter is made for an agent the config doesn't have: it would see no tools at all. */
export class UnknownAgentError extends SkillplaneError {
  override readonly code = 'not_found'
  override name = 'UnknownAgentError'
  constructor(label: string, known: string[]) {
    super(`unknown agent "${label}": the config's agents are ${known.length ? known.map((id) => `"${id}"`).join(', ') : 'none'}`)
  }
}

/** The caller and agent an adapter acts as; an unknown agent is an error, not an empty tool set. */
export function resolveToolOptions(plane: Plane, options: ToolAdapterOptions): ResolvedToolOptions {
  const known = () => plane.agents.list().map((a) => a.id)
  const { caller } = options
  if (caller?.kind === 'agent') {
    if (!plane.agents.get(caller.agentId)) throw new UnknownAgentError(caller.agentId, known())
    return { ...options, caller, agentId: caller.agentId }
  }
  if (!options.agent) {
    if (!caller) throw new TypeError('a tool adapter needs a caller, or an agent to act as: { agent: "support-bot" }')
    return { ...options, caller, agentId: null }
  }
  const agentId = plane.agents.resolve(options.agent)
  if (!agentId) throw new UnknownAgentError(options.agent, known())
  return { ...options, caller: caller ?? agentCaller(agentId, plane.agents.get(agentId)?.name ?? agentId), agentId }
}

/** The tools an adapter gives a caller, made once when the adapter is made (the pipeline re-checks each call). */
export interface CallerTools {
  /** Every tool the caller may call, by name; discover_skills only when discovering. */
  all: Map<string, CallableSkill>
  /** A large catalog: the model starts with the core set and finds the rest with discover_skills. */
  discovering: boolean
  /** The core set's tool names (discover_skills, `discovery.coreTools`, the instruction-skill tools) among them. */
  core: string[]
}

export function callerTools(plane: Plane, options: ResolvedToolOptions): CallerTools {
  const callable = callableSkills(plane, options.caller, options.agentId, options.onBehalfOf ?? null)
  const { discovering, core } = largeCatalog(callable, plane.config.discovery, options.discovery)
  const all = new Map(callable.filter((entry) => discovering || entry.skill.key !== DISCOVER_KEY).map((entry) => [entry.skill.toolName, entry]))
  return {
    all,
    discovering,
    core: [...all.values()].filter((entry) => core.has(entry.skill.key)).map((entry) => entry.skill.toolName),
  }
}

/**
 * Run a model's tool call through the pipeline. A repeated call resumes the caller's open approval
 * request for exactly these arguments, so a model that calls again after approval gets its result.
 */
export async function callTool(
  plane: Plane,
  entry: CallableSkill,
  args: Record<string, unknown>,
  options: ResolvedToolOptions & { approvalId?: string; gateOnly?: boolean; callerClient?: CallerClient },
): Promise<Envelope> {
  const { input, edgeId } = toSkillInput(entry, args)
  return plane.invoke(entry.skill.key, input, {
    caller: options.caller,
    // As given: an agent key naming another agent is refused (and audited) by the pipeline.
    agent: options.agent ?? null,
    conversationId: options.conversationId ?? null,
    edgeId,
    signal: options.signal,
    onBehalfOf: options.onBehalfOf ?? null,
    ...(options.callerClient && { client: options.callerClient }),
    approval: options.gateOnly
      ? { mode: 'check', approvalId: options.approvalId }
      : options.approvalId
        ? { mode: 'use', approvalId: options.approvalId }
        : { mode: 'resume' },
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
