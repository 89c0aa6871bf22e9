import type { Skill, Caller, ConnectionState, EdgeInfo, Envelope, JsonSchema } from '../skill/index.js'
import { type Registry, type CatalogReader, skillSummary } from '../registry/index.js'
import { canSee, type BindingView } from './can-see.js'
import { type Policies, decidePolicy, type PolicyDecision } from '../policy/index.js'
import { authorize } from './authorize.js'

/** What deciding one skill's access reads (a plane is one): bindings and enablement, the policies, the edges. */
export interface AccessView {
  readonly skills: BindingView & {
    /** A skill's connection state for a caller (and the agent it acts for); ready without it. */
    connectionState?(skill: Skill, subjects: { caller: Caller; agentId: string | null; onBehalfOf?: Caller | null }): ConnectionState
  }
  readonly policies: Pick<Policies, 'rows'>
  /** The enrolled edges offering a host-scope skill. */
  readonly sources?: { readonly edges: { offering(skillKey: string): EdgeInfo[] } }
}

/** What listing a caller's skills reads: the skills with their catalog rows, and the policies. */
export interface AccessSources extends AccessView {
  readonly skills: AccessView['skills'] & Pick<Registry, 'list'> & CatalogReader
}

/** A skill as an LLM tool for one caller. */
export interface CallableSkill {
  skill: Skill
  title: string
  description: string
  /** The input schema this caller sees; always an object schema (tool APIs require one). */
  inputSchema: JsonSchema
  /** The skill's input is not an object: tool arguments carry it as `{ input }`. */
  wrapped: boolean
  /** ALWAYS or ASK (DENY is never listed). */
  decision: Exclude<PolicyDecision, 'DENY'>
  /** Whether its secrets and settings are set for this caller; a tool that is not ready says so in its description. */
  connection: ConnectionState
}

/**
 * The skills a caller may call, as every tool surface (MCP, AI SDK, OpenAI, Anthropic) lists them:
 * visible to it (an agent key: its bound skills), enabled, allowed for its role, not DENY by
 * policy. Host-scope skills take a required `edge_id`. The pipeline re-checks all of it per call.
 */
export function callableSkills(plane: AccessSources, caller: Caller, agent: string | null = null, onBehalfOf: Caller | null = null): CallableSkill[] {
  const agentId = caller.kind === 'agent' ? caller.agentId : agent
  const policies = plane.policies.rows()
  const callable: CallableSkill[] = []
  for (const skill of plane.skills.list()) {
    const access = callAccess(plane, caller, agentId, skill, policies, onBehalfOf)
    if (!access) continue
    // A run acting for a person meets that person's values, as its calls will.
    const summary = skillSummary(skill, plane.skills, plane.skills.connectionState?.(skill, { caller, agentId, onBehalfOf }))
    let inputSchema = skill.inputSchemaFor({ caller, agent: agentId })
    const wrapped = inputSchema.type !== 'object'
    if (wrapped) inputSchema = { type: 'object', properties: { input: inputSchema }, required: ['input'] }
    if (skill.scope === 'host') inputSchema = withEdgeId(inputSchema, access.edges)
    const description = summary.connection.state === 'ready' ? summary.description : `${summary.description}\n\n${connectionNote(summary.connection)}`
    callable.push({ skill, title: summary.title, description, inputSchema, wrapped, decision: access.decision, connection: summary.connection })
  }
  return callable
}

/** How one caller (acting for a person: under the stricter of both policies) may call one skill: null when it may not (unseen, disabled, its role, DENY). */
export interface CallAccess {
  decision: Exclude<PolicyDecision, 'DENY'>
  /** For a host skill, the edges this caller may run it on. */
  edges: string[]
}

export function callAccess(
  plane: AccessView,
  caller: Caller,
  agentId: string | null,
  skill: Skill,
  policies: ReturnType<AccessView['policies']['rows']> = plane.policies.rows(),
  onBehalfOf: Caller | null = null,
): CallAccess | null {
  if (!canSee(caller, skill, plane.skills, agentId) || !plane.skills.isEnabled(skill.key)) return null
  if (authorize({ key: skill.key, skillClass: skill.class, caller, agentId, isBound: (a, k) => plane.skills.isBound(a, k) }) !== null) return null
  // As the pipeline decides a call: the person an agent acts for limits it by their role, and the stricter policy wins.
  const person = onBehalfOf?.kind === 'user' ? onBehalfOf : null
  if (person && authorize({ key: skill.key, skillClass: skill.class, caller: person, agentId: null, isBound: () => true }) !== null) return null
  const decide = (edge?: EdgeInfo): PolicyDecision => {
    const own = decidePolicy({ skill: skill.key, skillClass: skill.class, caller, agentId, ...(edge && { edge }), policies }).decision
    if (!person) return own
    const theirs = decidePolicy({ skill: skill.key, skillClass: skill.class, caller: person, agentId, ...(edge && { edge }), policies }).decision
    return STRICTNESS[theirs] > STRICTNESS[own] ? theirs : own
  }
  let decision = decide()
  // A host skill lists the edges this caller may run it on; when policies deny every one, it is not listed.
  let edges: string[] = []
  if (skill.scope === 'host') {
    const decided = (plane.sources?.edges.offering(skill.key) ?? []).map((edge) => ({
      edge,
      decision: decide(edge),
    }))
    const allowed = decided.filter((d) => d.decision !== 'DENY')
    edges = allowed.map((d) => d.edge.name)
    if (decided.length > 0) decision = allowed.some((d) => d.decision === 'ALWAYS') ? 'ALWAYS' : allowed.length ? 'ASK' : 'DENY'
  }
  return decision === 'DENY' ? null : { decision, edges }
}

const STRICTNESS: Record<PolicyDecision, number> = { ALWAYS: 0, ASK: 1, DENY: 2 }

/** A line for a model (or a person) on why a tool can't run yet and what an admin has to set. */
export function connectionNote(connection: ConnectionState): string {
  const names = [...connection.missing.secrets.map((n) => `the secret ${n}`), ...connection.missing.settings.map((n) => `the setting ${n}`)]
  return `Not connected yet (${connection.state}): it needs ${names.join(' and ')}, which an admin sets in skillplane; calling it now changes nothing.`
}

/** Tool arguments back into the skill's input and the edge to run on. */
export function toSkillInput(entry: CallableSkill, args: Record<string, unknown>): { input: unknown; edgeId: string | null } {
  let rest = args
  let edgeId: string | null = null
  if (entry.skill.scope === 'host') {
    const { edge_id, ...others } = args
    edgeId = typeof edge_id === 'string' ? edge_id : null
    rest = others
  }
  return { input: entry.wrapped ? rest.input : rest, edgeId }
}

function withEdgeId(schema: JsonSchema, edges: string[]): JsonSchema {
  const properties = (schema.properties as Record<string, unknown> | undefined) ?? {}
  const required = (schema.required as string[] | undefined) ?? []
  const edgeId = { type: 'string', description: 'The edge (host) to run on, by name.', ...(edges.length > 0 && { enum: edges }) }
  return {
    ...schema,
    properties: { ...properties, edge_id: edgeId },
    required: [...required.filter((r) => r !== 'edge_id'), 'edge_id'],
  }
}

/** What an approval waits for, in words for a model or a person (no API-only instructions). */
export function approvalText(details: Record<string, unknown>, approvalId: string): string {
  const count = Number(details.approvalsRequired ?? 1)
  const reason = typeof details.reason === 'string' ? ` (${details.reason})` : ''
  return `approval_required: this call needs approval${reason}; request ${approvalId} waits for ${count} approver${count === 1 ? '' : 's'}.`
}

/** The approval request a refused call waits for, when it waits for one. */
export function pendingApproval(envelope: Envelope): string | undefined {
  if (envelope.ok || envelope.error.code !== 'approval_required') return undefined
  const id = envelope.error.details?.approvalId
  return typeof id === 'string' ? id : undefined
}
