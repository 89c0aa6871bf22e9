import { monotonicFactory } from 'ulid'
import type { ApprovalRow, GrantRepository, GrantRow, GrantState } from '../store/index.js'
import type { AuditEvents } from '../audit/index.js'
import type { Caller } from '../skill/index.js'
import { can, mayRevokeGrant } from '../abilities/index.js'
import type { ApprovalSeal } from './approval-seal.js'
import { decidePolicy } from './decide-policy.js'
import type { Policies, Policy } from './policies.js'
import { GRANT_MINUTES, GRANT_SCOPES, type GrantScope } from './grant-scope.js'

export interface GrantView {
  id: string
  /** The approved request it came from. */
  approvalId: string
  skill: string
  agent: string | null
  conversationId: string
  /** The key whose calls it covers: the request's requester. */
  requester: { id: string; name: string }
  onBehalfOf: { id: string; name: string } | null
  edge: { id: string; name: string } | null
  grantedBy: { id: string; name: string }
  createdAt: string
  expiresAt: string
  status: GrantState
  revokedAt: string | null
  revokedBy: { id: string; name: string } | null
}

export type GrantFailure = { ok: false; code: 'invalid_input' | 'denied' | 'conflict' | 'not_found'; message: string }
/** What an approval with a scope beyond `once` left behind. */
export type Granted = { scope: 'conversation'; grant: GrantView } | { scope: 'always'; policy: Policy }

/** What is wrong with a decision's scope and minutes before any request is read, or null. */
export function scopeProblem(input: { decision: 'approve' | 'reject'; scope?: string; minutes?: number }): string | null {
  if (input.decision === 'reject') {
    return input.scope !== undefined || input.minutes !== undefined ? 'scope and minutes apply to approve only: a rejection is for this request' : null
  }
  if (input.scope !== undefined && !(GRANT_SCOPES as readonly string[]).includes(input.scope)) {
    return `scope must be one of ${GRANT_SCOPES.join(', ')}, got ${JSON.stringify(input.scope)}`
  }
  if (input.minutes === undefined) return null
  if (input.scope !== 'conversation') return 'minutes applies to scope conversation only'
  if (!Number.isInteger(input.minutes) || input.minutes < 1 || input.minutes > GRANT_MINUTES.max) {
    return `minutes must be a whole number from 1 to ${GRANT_MINUTES.max} (24 h), got ${input.minutes}`
  }
  return null
}

/**
 * Approvals that reach past their own call. A conversation grant lets the requester's later calls
 * of the skill, for the same agent, person and edge in the same conversation, run without a new
 * request until it expires or is revoked; `always` writes an ALWAYS override for the agent and
 * skill. Only mutating skills get either: a dangerous call is approved one call at a time.
 */
export class Grants {
  readonly #nextId = monotonicFactory()

  constructor(
    private readonly repo: GrantRepository,
    private readonly seal: ApprovalSeal,
    private readonly events: AuditEvents,
    private readonly policies: Policies,
    private readonly clock: () => Date,
  ) {}

  /** Why this request can't be approved with this scope by this approver, or null. */
  refusal(row: ApprovalRow, scope: Exclude<GrantScope, 'once'>, approver: Caller): GrantFailure | null {
    const fail = (code: GrantFailure['code'], message: string): GrantFailure => ({ ok: false, code, message })
    if (row.class !== 'mutating' || row.sop_required === 1) {
      return fail('denied', `scope ${scope} is for mutating skills only: a ${row.class} call of "${row.skill_key}" is approved once, call by call`)
    }
    if (scope === 'conversation') {
      if (row.conversation_id === null) {
        return fail('invalid_input', `request ${row.id} was made without a conversationId, so there is no conversation to grant: approve it once, or always`)
      }
      // An agent's call the policy lets run asked because the skill judged this input (needsApproval): the gate never lets a grant cover other inputs.
      if (row.agent_id !== null && row.caller_kind === 'agent') {
        const agentCall: Caller = { kind: 'agent', id: row.caller_id, name: row.caller_name, agentId: row.agent_id }
        if (
          decidePolicy({ skill: row.skill_key, skillClass: 'mutating', caller: agentCall, agentId: row.agent_id, policies: this.policies.rows() }).decision ===
          'ALWAYS'
        )
          return fail('invalid_input', `request ${row.id} was asked by the skill about this input (${row.reason}), not by a policy: approve it once`)
      }
      return null
    }
    if (approver.kind !== 'user' || !can(approver, 'managePolicies')) {
      return fail('denied', 'scope always writes a policy override, which only admins may do: approve once, or for the conversation')
    }
    if (row.agent_id === null) return fail('invalid_input', `request ${row.id} was made for no agent: scope always is for an agent and a skill`)
    const override = {
      id: '(new)',
      skill_key: row.skill_key,
      level: 'agent',
      subject: row.agent_id,
      decision: 'ALWAYS',
      created_by: approver.name,
      created_at: '',
    }
    const others = this.policies.rows().filter((p) => !(p.skill_key === row.skill_key && p.level === 'agent' && p.subject === row.agent_id))
    const agentCall: Caller = { kind: 'agent', id: row.caller_id, name: row.caller_name, agentId: row.agent_id }
    const after = decidePolicy({ skill: row.skill_key, skillClass: 'mutating', caller: agentCall, agentId: row.agent_id, policies: [...others, override] })
    if (after.decision !== 'ALWAYS') {
      return fail(
        'conflict',
        `an ALWAYS override for agent ${row.agent_id} would not take effect, because the strictest override applies and ${after.reason}: approve once, or for the conversation`,
      )
    }
    return null
  }

  /**
   * The sealed row of a conversation grant for a request about to be approved (checked first with
   * `refusal`): the approval stores it in the same transaction as the decision that approves, so a
   * request is never approved without the grant it was approved with.
   */
  conversationGrant(row: ApprovalRow, approver: Caller, minutes: number = GRANT_MINUTES.default): GrantRow {
    const now = this.clock()
    const grant: GrantRow = {
      id: this.#nextId(now.getTime()),
      approval_id: row.id,
      skill_key: row.skill_key,
      agent_id: row.agent_id,
      conversation_id: row.conversation_id!,
      caller_id: row.caller_id,
      caller_name: row.caller_name,
      on_behalf_of_id: row.on_behalf_of_id,
      on_behalf_of_name: row.on_behalf_of_name,
      edge_id: row.edge_id,
      edge_name: row.edge_name,
      granted_by_id: approver.id,
      granted_by_name: approver.name,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + minutes * 60_000).toISOString(),
      revoked_at: null,
      revoked_by_id: null,
      revoked_by_name: null,
      seal: '',
    }
    grant.seal = this.seal.seal(sealed(grant))
    return grant
  }

  /** Audit a conversation grant stored with its approval. */
  async recordGrant(row: ApprovalRow, grant: GrantRow, approver: Caller): Promise<Granted> {
    const view = toView(grant, this.#now())
    await this.events.record('approval.grant_created', `approval:${row.id}`, approver, { scope: 'conversation', grant: view }, row.call_id)
    return { scope: 'conversation', grant: view }
  }

  /** Write the ALWAYS override an approval with scope `always` asked for (checked first with `refusal`), audited. */
  async always(row: ApprovalRow, approver: Caller): Promise<Granted> {
    const set = await this.policies.set({ skill: row.skill_key, level: 'agent', subject: row.agent_id!, decision: 'ALWAYS' }, approver, this.#now(), {
      approvalId: row.id,
    })
    if (!set.ok) throw new Error(`the ALWAYS override for approval request ${row.id} was refused: ${set.message}`)
    await this.events.record('approval.grant_created', `approval:${row.id}`, approver, { scope: 'always', policy: set.policy }, row.call_id)
    return { scope: 'always', policy: set.policy }
  }

  /**
   * The live grant that covers this call, if any: same requester key, skill, agent, conversation,
   * on-behalf-of person and edge, unexpired, unrevoked, its seal intact. The class is the gate's to check.
   */
  async covering(q: {
    skill: string
    caller: Caller
    agentId: string | null
    conversationId: string
    onBehalfOf: Caller | null
    edgeId: string | null
  }): Promise<GrantView | undefined> {
    const now = this.#now()
    const rows = await this.repo.live({
      skill: q.skill,
      conversationId: q.conversationId,
      callerId: q.caller.id,
      agentId: q.agentId,
      onBehalfOfId: q.onBehalfOf?.id ?? null,
      edgeId: q.edgeId,
      now,
    })
    // A row written or edited around the plane (a longer expiry, another conversation) has no valid seal.
    const row = rows.find((r) => this.seal.verify(sealed(r), r.seal))
    return row && toView(row, now)
  }

  async get(id: string): Promise<GrantView | undefined> {
    const row = await this.repo.get(id)
    return row && toView(row, this.#now())
  }

  async list(q: {
    status?: GrantState
    skill?: string
    agent?: string
    conversationId?: string
    cursor?: string
    limit: number
  }): Promise<{ items: GrantView[]; nextCursor: string | null }> {
    const now = this.#now()
    const rows = await this.repo.list({ ...q, state: q.status, now })
    const page = rows.slice(0, q.limit)
    return { items: page.map((r) => toView(r, now)), nextCursor: rows.length > q.limit ? page[page.length - 1]!.id : null }
  }

  /** End a live grant now: its granter or an admin may, audited. */
  async revoke(id: string, caller: Caller): Promise<{ ok: true; grant: GrantView } | GrantFailure> {
    const fail = (code: GrantFailure['code'], message: string): GrantFailure => ({ ok: false, code, message })
    const row = await this.repo.get(id)
    if (!row) return fail('not_found', `no grant "${id}"`)
    if (!mayRevokeGrant(caller, row.granted_by_id)) {
      return fail('denied', `only ${row.granted_by_name}, who granted it, or an admin may revoke grant ${id}`)
    }
    const now = this.#now()
    if (row.revoked_at !== null) return fail('conflict', `grant ${id} was already revoked at ${row.revoked_at} by ${row.revoked_by_name}`)
    if (row.expires_at <= now) return fail('conflict', `grant ${id} expired at ${row.expires_at}: there is nothing left to revoke`)
    if (!(await this.repo.revoke(id, caller, now))) return fail('conflict', `grant ${id} was revoked by someone else meanwhile`)
    const grant = toView({ ...row, revoked_at: now, revoked_by_id: caller.id, revoked_by_name: caller.name }, now)
    await this.events.record('approval.grant_revoked', `approval:${row.approval_id}`, caller, { grant })
    return { ok: true, grant }
  }

  #now(): string {
    return this.clock().toISOString()
  }
}

function sealed(row: GrantRow): Record<string, unknown> {
  return {
    // Apart from a request's seal: neither can stand in for the other.
    purpose: 'grant',
    id: row.id,
    approval: row.approval_id,
    skill: row.skill_key,
    agent: row.agent_id,
    conversation: row.conversation_id,
    caller: row.caller_id,
    onBehalfOf: row.on_behalf_of_id,
    edge: row.edge_id,
    grantedBy: row.granted_by_id,
    expiresAt: row.expires_at,
  }
}

function toView(row: GrantRow, now: string): GrantView {
  return {
    id: row.id,
    approvalId: row.approval_id,
    skill: row.skill_key,
    agent: row.agent_id,
    conversationId: row.conversation_id,
    requester: { id: row.caller_id, name: row.caller_name },
    onBehalfOf: row.on_behalf_of_id === null ? null : { id: row.on_behalf_of_id, name: row.on_behalf_of_name ?? '' },
    edge: row.edge_id === null ? null : { id: row.edge_id, name: row.edge_name ?? '' },
    grantedBy: { id: row.granted_by_id, name: row.granted_by_name },
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    status: row.revoked_at !== null ? 'revoked' : row.expires_at <= now ? 'expired' : 'active',
    revokedAt: row.revoked_at,
    revokedBy: row.revoked_by_id === null ? null : { id: row.revoked_by_id, name: row.revoked_by_name ?? '' },
  }
}
