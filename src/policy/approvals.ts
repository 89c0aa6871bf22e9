import { EventEmitter } from 'node:events'
import type { ErrorCode } from '../errors/index.js'
import { monotonicFactory } from 'ulid'
import type { ApprovalRepository, ApprovalRow, DecisionRow, WaitFacts } from '../store/index.js'
import { type Actor, type AuditEvents, SYSTEM_ACTOR } from '../audit/index.js'
import { identityOf, type Caller, type CallerRole, type SkillClass } from '../skill/index.js'
import type { ApprovalSeal } from './approval-seal.js'
import type { Requirement } from './decide-policy.js'
import type { Sops } from './sop/sops.js'
import type { WebhookNotifier } from './webhook-notifier.js'
import { scopeProblem, type Granted, type Grants } from './grants.js'
import type { GrantScope } from './grant-scope.js'
import { mayDecideApproval } from '../abilities/index.js'
import { roleAtLeast } from '../abilities/index.js'

// The event name for every settled request (ids are the names for one request).
const ANY = Symbol('any request')

import { type ApprovalStatus } from './approval-status.js'
export { APPROVAL_STATUSES, type ApprovalStatus } from './approval-status.js'

export interface ApprovalView {
  id: string
  skill: string
  class: string
  /** The input as audited: secrets redacted. */
  input: unknown
  inputHash: string
  /**
   * Who asked: a person's user id and name, or an agent key's id and name; `user` is the person (for
   * an agent key, the user it belongs to), `auth` how they authenticated (null: in-process).
   */
  requester: { id: string; name: string; kind: string; user: { id: string; displayName: string } | null; auth: string | null; keyId: string | null }
  /** The person who had the agent make the call, when an agent run did. */
  onBehalfOf: { id: string; name: string } | null
  agent: string | null
  /** The edge a host-scope call would run on. */
  edge: { id: string; name: string } | null
  conversationId: string | null
  callId: string
  reason: string
  approvalsRequired: number
  approverRole: string
  sopRequired: boolean
  status: ApprovalStatus
  createdAt: string
  expiresAt: string
  decidedAt: string | null
  executedCallId: string | null
  decisions: Array<{
    /** The approver's user id and name, the name to show, how they authenticated and with which key. */
    approver: { id: string; name: string; role: string; displayName: string; auth: string | null; keyId: string | null }
    decision: 'approve' | 'reject'
    comment: string | null
    sop: { id: string; hash: string } | null
    createdAt: string
  }>
}

export interface NewApproval {
  skill: string
  skillClass: SkillClass
  inputJson: string
  inputHash: string
  caller: Caller
  agentId: string | null
  conversationId: string | null
  callId: string
  reason: string
  requirement: Requirement
  /** The person who had the agent make this call. */
  onBehalfOf?: Caller | null
  /** The edge a host-scope call would run on (its input hash covers it too). */
  edge?: { id: string; name: string } | null
}

export type DecideFailure = { ok: false; code: Extract<ErrorCode, 'denied' | 'not_found' | 'conflict' | 'tampered' | 'invalid_input'>; message: string }
/** `granted`: what an approval with scope conversation or always left behind. */
/** `grantProblem`: approved, but the ALWAYS override its scope asked for could not be written. */
export type DecideResult = { ok: true; approval: ApprovalView; granted?: Granted; grantProblem?: string } | DecideFailure
export interface ClaimInput {
  id: string
  skill: string
  /** The validated input about to run, and its canonical hash. */
  input: unknown
  inputHash: string
  caller: Caller
  agentId: string | null
  callId: string
  /** What the policy requires of an approval today. */
  requirement: Requirement
}

/** A claimed request says when it was asked for and decided: the approval wait a trace shows. */
export type ClaimResult = { ok: true; requestedAt: string; decidedAt: string | null } | { ok: false; code: ErrorCode; message: string; pending?: ApprovalView }

/**
 * Approval requests: created by the pipeline when the policy says ASK, decided by humans, and
 * claimed at most once by the call they approve. Every row and decision carries an HMAC seal.
 */
export class Approvals {
  readonly #nextId = monotonicFactory()
  readonly #decided = new EventEmitter()

  constructor(
    private readonly repo: ApprovalRepository,
    private readonly seal: ApprovalSeal,
    private readonly events: AuditEvents,
    private readonly sops: Sops,
    private readonly notifier: WebhookNotifier,
    private readonly grants: Grants,
    private readonly options: {
      expiresAfterMs: number
      pollMs: number
      /** Whether the audit log holds a call that ran with this approval. */
      hasRun: (approvalId: string) => Promise<boolean>
      /** A request stopped waiting for people (decided or expired): the health stats count the wait. */
      onWaited?: (wait: WaitFacts) => void
    },
  ) {
    this.#decided.setMaxListeners(0)
  }

  async create(request: NewApproval): Promise<ApprovalView> {
    const now = new Date()
    const requester = identityOf(request.caller)
    const row: ApprovalRow = {
      id: this.#nextId(),
      skill_key: request.skill,
      class: request.skillClass,
      input: request.inputJson,
      input_hash: request.inputHash,
      caller_id: request.caller.id,
      caller_name: request.caller.name,
      caller_kind: request.caller.kind,
      caller_user_id: requester.userId,
      caller_display_name: requester.displayName,
      caller_auth: requester.auth,
      caller_key_id: requester.keyId,
      agent_id: request.agentId,
      conversation_id: request.conversationId,
      call_id: request.callId,
      reason: request.reason,
      approvals_required: request.requirement.approvals,
      approver_role: request.requirement.approverRole,
      sop_required: request.requirement.sop ? 1 : 0,
      status: 'pending',
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + this.options.expiresAfterMs).toISOString(),
      decided_at: null,
      executed_call_id: null,
      seal: '',
      on_behalf_of_id: request.onBehalfOf?.id ?? null,
      on_behalf_of_name: request.onBehalfOf?.name ?? null,
      edge_id: request.edge?.id ?? null,
      edge_name: request.edge?.name ?? null,
    }
    row.seal = this.seal.seal(requestFields(row))
    await this.repo.insert(row)
    await this.events.record('approval.created', `approval:${row.id}`, request.caller, { skill: row.skill_key, reason: row.reason }, row.call_id)
    const view = toView(row, [])
    this.notifier.notify({ type: 'approval.created', approval: view })
    return view
  }

  async get(id: string): Promise<ApprovalView | undefined> {
    const row = await this.#load(id)
    return row ? toView(row, await this.repo.decisions(id)) : undefined
  }

  /**
   * Whether approving request `id` could cite SOP `sopId` now: the same check an approval makes
   * (registered, signature verifying with a trusted key, covering the skill, the input within its
   * constraints), so an approver can verify a procedure before choosing it. Undefined for no request.
   */
  async checkSop(id: string, sopId: string): Promise<{ ok: true; sop: { id: string; hash: string } } | { ok: false; message: string } | undefined> {
    const row = await this.#load(id)
    if (!row) return undefined
    const cited = await this.sops.checkCitation(sopId, row.skill_key, JSON.parse(row.input))
    return cited.ok ? { ok: true, sop: cited.value } : { ok: false, message: cited.message }
  }

  /** How many requests wait for decisions now. */
  pendingCount(): Promise<number> {
    return this.repo.countPending(new Date().toISOString())
  }

  async list(q: {
    status?: ApprovalStatus
    /** Only requests past pending (true), or only pending ones (false). */
    decided?: boolean
    skill?: string
    agent?: string
    requester?: string
    cursor?: string
    limit: number
  }): Promise<{ items: ApprovalView[]; nextCursor: string | null }> {
    await this.expireDue()
    const rows = await this.repo.list(q)
    const page = rows.slice(0, q.limit)
    const items = await Promise.all(page.map(async (r) => toView(r, await this.repo.decisions(r.id))))
    return { items, nextCursor: rows.length > q.limit ? page[page.length - 1]!.id : null }
  }

  /** The requests made in one conversation, oldest first (`limit` at most). */
  async ofConversation(conversationId: string, limit: number): Promise<ApprovalView[]> {
    await this.expireDue()
    const rows = await this.repo.ofConversation(conversationId, limit)
    return Promise.all(rows.map(async (r) => toView(r, await this.repo.decisions(r.id))))
  }

  /**
   * Record one person's decision. It either moves the request from the state the decider saw
   * (pending, with the decisions judged) or is refused with a conflict: a reject always wins over
   * approvals short of their threshold, and a decision never lands on a request already settled.
   */
  async decide(input: {
    id: string
    caller: Caller
    decision: 'approve' | 'reject'
    comment?: string
    sopId?: string
    /** How far an approval reaches (default `once`); `minutes` is a conversation grant's lifetime. */
    scope?: GrantScope
    minutes?: number
  }): Promise<DecideResult> {
    const { caller } = input
    const fail = (code: DecideFailure['code'], message: string): DecideFailure => ({ ok: false, code, message })
    if (caller.kind !== 'user') return fail('denied', 'agent keys cannot decide approvals: a human must')
    const problem = scopeProblem(input)
    if (problem) return fail('invalid_input', problem)
    const scope = input.decision === 'approve' && input.scope !== undefined && input.scope !== 'once' ? input.scope : null
    for (let attempt = 0; ; attempt++) {
      const row = await this.#load(input.id)
      if (!row) return fail('not_found', `no approval request "${input.id}"`)
      if (!this.seal.verify(requestFields(row), row.seal)) return fail('tampered', `approval request ${row.id} failed its integrity check`)
      if (row.status !== 'pending')
        return fail('conflict', `approval request ${row.id} is ${row.status}${row.decided_at ? ` since ${row.decided_at}` : ''}: it can't be decided any more`)
      // The same person under another key is still the requester; a request made before users existed names the key.
      if (input.decision === 'approve' && (caller.id === row.caller_id || (caller.keyId !== undefined && caller.keyId === row.caller_id)))
        return fail('denied', 'the requester cannot approve their own request')
      if (input.decision === 'approve' && caller.id === row.caller_user_id) {
        return fail('denied', `${caller.name} owns the agent key that made this call, so another person must approve it`)
      }
      if (input.decision === 'approve' && caller.id === row.on_behalf_of_id) {
        return fail('denied', `${caller.name} had the agent make this call, so another person must approve it`)
      }
      if (!mayDecideApproval(caller, row.approver_role)) {
        return fail(
          'denied',
          `role ${caller.role} may not decide this request: it needs ${row.approver_role}${row.approver_role === 'admin' ? '' : ' or admin'}`,
        )
      }
      if (scope) {
        const refused = this.grants.refusal(row, scope, caller)
        if (refused) return refused
      }
      let sop: { id: string; hash: string } | null = null
      if (input.decision === 'approve' && row.sop_required === 1) {
        if (!input.sopId) return fail('invalid_input', `approving dangerous skill "${row.skill_key}" must cite a signed procedure (sopId)`)
        const cited = await this.sops.checkCitation(input.sopId, row.skill_key, JSON.parse(row.input))
        if (!cited.ok) return fail('denied', cited.message)
        sop = cited.value
      }
      const earlier = await this.repo.decisions(row.id)
      // One decision per person: the user id (or the key id of a decision made before users existed), never a display name.
      if (earlier.some((d) => d.approver_id === caller.id || (caller.keyId !== undefined && d.approver_id === caller.keyId)))
        return fail('conflict', `${caller.name} has already decided request ${row.id}`)
      const approver = identityOf(caller)
      const decision: DecisionRow = {
        id: this.#nextId(),
        approval_id: row.id,
        approver_id: caller.id,
        approver_name: caller.name,
        approver_role: caller.role,
        approver_display_name: approver.displayName,
        approver_auth: approver.auth,
        approver_key_id: approver.keyId,
        decision: input.decision,
        comment: input.comment ?? null,
        sop_id: sop?.id ?? null,
        sop_hash: sop?.hash ?? null,
        created_at: new Date().toISOString(),
        seal: '',
      }
      decision.seal = this.seal.seal(decisionFields(row, decision))
      const decisions = [...earlier, decision]
      const next: ApprovalStatus =
        input.decision === 'reject'
          ? 'rejected'
          : (await this.#validApprovals(row, decisions, JSON.parse(row.input))).count >= row.approvals_required
            ? 'approved'
            : 'pending'
      // A conversation grant commits with the decision that approves, or not at all.
      const grant = scope === 'conversation' && next === 'approved' ? this.grants.conversationGrant(row, caller, input.minutes) : undefined
      const outcome = await this.repo.decide(decision, earlier.length, next, decision.created_at, grant)
      // Someone else decided between our read and our write: judge again with what they added.
      if (outcome === 'changed' && attempt < 5) continue
      if (outcome === 'changed' || outcome === 'not_pending') {
        const now = await this.repo.get(row.id)
        return fail(
          'conflict',
          `approval request ${row.id} was decided by someone else meanwhile (it is ${now?.status ?? 'gone'}): reload it and decide again if it still needs you`,
        )
      }
      if (outcome === 'duplicate') return fail('conflict', `${caller.name} has already decided request ${row.id}`)
      await this.events.record(
        `approval.${input.decision === 'approve' ? 'approval' : 'rejection'}`,
        `approval:${row.id}`,
        caller,
        { comment: decision.comment, sop },
        row.call_id,
      )
      let granted: Granted | undefined
      let grantProblem: string | undefined
      if (grant) granted = await this.grants.recordGrant(row, grant, caller)
      if (scope === 'always' && next === 'approved') {
        // A policy is its own record: written after the approval, and a failure is reported, not thrown.
        try {
          granted = await this.grants.always(row, caller)
        } catch (error) {
          grantProblem = `approved once: the ALWAYS override could not be written (${(error as Error).message}); set it with PUT /api/policies`
        }
      }
      if (next !== 'pending') {
        this.#waited(row, decision.created_at)
        await this.#settled(row, next, caller)
      }
      const view = toView((await this.repo.get(row.id))!, decisions)
      this.notifier.notify({ type: 'approval.decided', decision: input.decision, by: caller.name, approval: view })
      return { ok: true, approval: view, ...(granted && { granted }), ...(grantProblem && { grantProblem }) }
    }
  }

  /**
   * Claim an approved request for one call. The request's and decisions' seals, the caller, the
   * agent, the exact arguments and today's requirement must all match, every cited SOP must still
   * cover the actual input, and only one claim ever succeeds.
   */
  async claim(input: ClaimInput): Promise<ClaimResult> {
    const row = await this.#load(input.id)
    const refuse = (message: string): ClaimResult => ({ ok: false, code: 'denied', message })
    if (!row) return { ok: false, code: 'not_found', message: `no approval request "${input.id}"` }
    if (!this.seal.verify(requestFields(row), row.seal)) return refuse(`approval request ${row.id} failed its integrity check`)
    if (row.skill_key !== input.skill) return refuse(`approval request ${row.id} is for skill "${row.skill_key}", not "${input.skill}"`)
    // A person's request made before users existed names the key they made it with.
    if (row.caller_id !== input.caller.id && row.caller_id !== input.caller.keyId) return refuse(`approval request ${row.id} belongs to another caller`)
    if (row.agent_id !== input.agentId)
      return refuse(`approval request ${row.id} was made for agent ${row.agent_id ?? '(none)'}, not ${input.agentId ?? '(none)'}`)
    if (row.input_hash !== input.inputHash) return refuse(`approval request ${row.id} was made for other arguments: a changed input needs a new approval`)
    switch (row.status as ApprovalStatus) {
      case 'pending':
        return {
          ok: false,
          code: 'approval_required',
          message: `approval request ${row.id} is still pending`,
          pending: toView(row, await this.repo.decisions(row.id)),
        }
      case 'rejected':
        return { ok: false, code: 'approval_rejected', message: `approval request ${row.id} was rejected` }
      case 'expired':
        return { ok: false, code: 'approval_expired', message: `approval request ${row.id} expired at ${row.expires_at}` }
      case 'executed':
        return refuse(`approval request ${row.id} was already used by call ${row.executed_call_id}: it runs at most once`)
      case 'withdrawn':
        return refuse(`approval request ${row.id} was withdrawn: ask again with a new call`)
    }
    const required = input.requirement
    if (row.approvals_required < required.approvals || !roleAtLeast(row.approver_role, required.approverRole) || (required.sop && row.sop_required !== 1)) {
      return refuse(`approval request ${row.id} was granted under weaker rules than skill "${row.skill_key}" needs now: request a new approval`)
    }
    // Defence in depth against a row edited back to "approved": the audit log remembers runs.
    if (row.executed_call_id !== null || (await this.options.hasRun(row.id))) return refuse(`approval request ${row.id} was already used: it runs at most once`)
    const valid = await this.#validApprovals(row, await this.repo.decisions(row.id), input.input)
    if (valid.count < row.approvals_required) {
      return refuse(`approval request ${row.id} lacks valid approvals${valid.problem ? `: ${valid.problem}` : ': its decisions failed their integrity check'}`)
    }
    if (!(await this.repo.transition(row.id, 'approved', 'executed', { executed_call_id: input.callId }))) {
      return refuse(`approval request ${row.id} was already used by another call: it runs at most once`)
    }
    await this.events.record('approval.executed', `approval:${row.id}`, input.caller, {}, input.callId)
    this.notifier.notify({
      type: 'approval.executed',
      callId: input.callId,
      approval: toView({ ...row, status: 'executed', executed_call_id: input.callId }, await this.repo.decisions(row.id)),
    })
    return { ok: true, requestedAt: row.created_at, decidedAt: row.decided_at }
  }

  /**
   * The id of an open (pending or approved, unused, unexpired) request by this caller for exactly
   * this call in the same conversation: a caller that can't carry an approval id (an LLM repeating
   * a tool call) resumes it, and no other run or session of the same agent can.
   */
  async findOpen(q: { skill: string; inputHash: string; caller: Caller; agentId: string | null; conversationId: string | null }): Promise<string | undefined> {
    const row = await this.repo.findOpen({
      skill: q.skill,
      inputHash: q.inputHash,
      callerId: q.caller.id,
      agentId: q.agentId,
      conversationId: q.conversationId,
      now: new Date().toISOString(),
    })
    return row?.id
  }

  /** Call `listener` after any request this process moved out of pending (decided or expired). */
  onSettled(listener: (id: string, status: ApprovalStatus) => void): () => void {
    this.#decided.on(ANY, listener)
    return () => this.#decided.off(ANY, listener)
  }

  /** Resolves with the request's status once decided, or 'pending' at the timeout or abort. */
  waitForDecision(id: string, timeoutMs: number, signal?: AbortSignal): Promise<ApprovalStatus> {
    return new Promise((resolve) => {
      let settled = false
      const finish = (status: ApprovalStatus) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        clearInterval(poll)
        this.#decided.off(id, onLocal)
        signal?.removeEventListener('abort', onAbort)
        resolve(status)
      }
      const onLocal = (status: ApprovalStatus) => finish(status)
      const onAbort = () => finish('pending')
      // Decisions made by another manager arrive through the shared database.
      const poll = setInterval(() => {
        this.#load(id).then(
          (row) => row && row.status !== 'pending' && finish(row.status as ApprovalStatus),
          () => {},
        )
      }, this.options.pollMs)
      const timer = setTimeout(() => finish('pending'), timeoutMs)
      this.#decided.on(id, onLocal)
      if (signal?.aborted) finish('pending')
      else signal?.addEventListener('abort', onAbort, { once: true })
    })
  }

  /** Mark pending requests past their expiry as expired (audited); returns how many. */
  async expireDue(): Promise<number> {
    const now = new Date().toISOString()
    let expired = 0
    for (const row of await this.repo.dueForExpiry(now)) {
      if (await this.#transition(row, 'expired', SYSTEM_ACTOR, { expiresAt: row.expires_at })) expired++
    }
    return expired
  }

  /** The row, after lazily applying what time and earlier decisions imply. */
  async #load(id: string): Promise<ApprovalRow | undefined> {
    const row = await this.repo.get(id)
    if (!row) return undefined
    // An approval must be used before the request's expiry too, not only decided before it.
    if ((row.status === 'pending' || row.status === 'approved') && row.expires_at <= new Date().toISOString()) {
      await this.#transition(row, 'expired', SYSTEM_ACTOR, { expiresAt: row.expires_at })
      return this.repo.get(id)
    }
    return row
  }

  /**
   * Withdraw a pending request nobody will use (the test run that asked for it ended): it leaves
   * approvers' inboxes and can't be decided or claimed any more. False when it was not pending.
   */
  async withdraw(id: string, reason: string): Promise<boolean> {
    const row = await this.#load(id)
    if (!row || row.status !== 'pending') return false
    return this.#transition(row, 'withdrawn', SYSTEM_ACTOR, { reason })
  }

  async #transition(row: ApprovalRow, next: ApprovalStatus, actor: Actor, details: Record<string, unknown> = {}): Promise<boolean> {
    if (!(await this.repo.transition(row.id, row.status, next, { decided_at: new Date().toISOString() }))) return false
    // A pending request that expired waited until its expiry; a withdrawn one was abandoned, not waited on.
    if (row.status === 'pending' && next === 'expired') this.#waited(row, row.expires_at)
    await this.#settled(row, next, actor, details)
    return true
  }

  #waited(row: ApprovalRow, endedAt: string): void {
    const seconds = (Date.parse(endedAt) - Date.parse(row.created_at)) / 1000
    this.options.onWaited?.({ skill_key: row.skill_key, caller_id: row.caller_id, agent_id: row.agent_id, edge_name: row.edge_name, endedAt, seconds })
  }

  /** Audit and announce a request that just left `row.status` for `next`. */
  async #settled(row: ApprovalRow, next: ApprovalStatus, actor: Actor, details: Record<string, unknown> = {}): Promise<void> {
    await this.events.record(`approval.${next}`, `approval:${row.id}`, actor, details, row.call_id)
    this.#decided.emit(row.id, next)
    this.#decided.emit(ANY, row.id, next)
    if (next === 'expired' || next === 'withdrawn')
      this.notifier.notify({ type: `approval.${next}`, approval: toView({ ...row, status: next }, await this.repo.decisions(row.id)) })
  }

  /**
   * Approvals that count: sealed, by distinct people (user ids; two keys of one user count once)
   * other than the requester, the user owning the agent key that asked and the person an agent
   * acted for, with the required role, and when an SOP is required citing one that,
   * for the given input, still verifies, covers it and has not changed since it was cited.
   */
  async #validApprovals(row: ApprovalRow, decisions: DecisionRow[], input: unknown): Promise<{ count: number; problem?: string }> {
    const people = new Set<string>()
    let count = 0
    let problem: string | undefined
    for (const d of decisions) {
      if (d.decision !== 'approve' || [row.caller_id, row.caller_user_id, row.on_behalf_of_id].includes(d.approver_id)) continue
      if (d.approver_key_id !== null && d.approver_key_id === row.caller_id) continue
      if (!this.seal.verify(decisionFields(row, d), d.seal)) continue
      if (!roleAtLeast(d.approver_role, row.approver_role as CallerRole)) continue
      // A decision made before users existed is known by its key id: the same key's later decision is the same person.
      if (people.has(d.approver_id) || (d.approver_key_id !== null && people.has(d.approver_key_id))) continue
      if (row.sop_required === 1) {
        if (!d.sop_id || !d.sop_hash) continue
        const cited = await this.sops.checkCitation(d.sop_id, row.skill_key, input)
        if (!cited.ok || cited.value.hash !== d.sop_hash) {
          problem = cited.ok ? `SOP "${d.sop_id}" changed after ${d.approver_name} cited it` : cited.message
          continue
        }
      }
      people.add(d.approver_id)
      if (d.approver_key_id !== null) people.add(d.approver_key_id)
      count++
    }
    return { count, problem }
  }
}

function requestFields(row: ApprovalRow): Record<string, unknown> {
  return {
    id: row.id,
    skill: row.skill_key,
    input: row.input,
    inputHash: row.input_hash,
    caller: row.caller_id,
    callerName: row.caller_name,
    agent: row.agent_id,
    callId: row.call_id,
    approvals: row.approvals_required,
    approverRole: row.approver_role,
    sop: row.sop_required,
    expiresAt: row.expires_at,
    // Only present when set, so that seals of requests made before the column existed still verify.
    ...(row.on_behalf_of_id !== null && { onBehalfOf: row.on_behalf_of_id, onBehalfOfName: row.on_behalf_of_name }),
    ...(row.edge_id !== null && { edge: row.edge_id, edgeName: row.edge_name }),
    ...(row.caller_user_id !== null && { callerUser: row.caller_user_id, callerKey: row.caller_key_id }),
  }
}

function decisionFields(row: ApprovalRow, d: DecisionRow): Record<string, unknown> {
  return {
    approval: row.id,
    skill: row.skill_key,
    inputHash: row.input_hash,
    approver: d.approver_id,
    role: d.approver_role,
    decision: d.decision,
    sop: d.sop_id,
    sopHash: d.sop_hash,
    ...(d.approver_key_id !== null && { approverKey: d.approver_key_id }),
  }
}

function toView(row: ApprovalRow, decisions: DecisionRow[]): ApprovalView {
  return {
    id: row.id,
    skill: row.skill_key,
    class: row.class,
    input: JSON.parse(row.input),
    inputHash: row.input_hash,
    requester: {
      id: row.caller_id,
      name: row.caller_name,
      kind: row.caller_kind,
      user: row.caller_user_id === null ? null : { id: row.caller_user_id, displayName: row.caller_display_name ?? row.caller_name },
      auth: row.caller_auth,
      keyId: row.caller_key_id,
    },
    onBehalfOf: row.on_behalf_of_id === null ? null : { id: row.on_behalf_of_id, name: row.on_behalf_of_name ?? '' },
    agent: row.agent_id,
    edge: row.edge_id === null ? null : { id: row.edge_id, name: row.edge_name ?? '' },
    conversationId: row.conversation_id,
    callId: row.call_id,
    reason: row.reason,
    approvalsRequired: row.approvals_required,
    approverRole: row.approver_role,
    sopRequired: row.sop_required === 1,
    status: row.status as ApprovalStatus,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    decidedAt: row.decided_at,
    executedCallId: row.executed_call_id,
    decisions: decisions.map((d) => ({
      approver: {
        id: d.approver_id,
        name: d.approver_name,
        role: d.approver_role,
        displayName: d.approver_display_name ?? d.approver_name,
        auth: d.approver_auth,
        keyId: d.approver_key_id,
      },
      decision: d.decision as 'approve' | 'reject',
      comment: d.comment,
      sop: d.sop_id && d.sop_hash ? { id: d.sop_id, hash: d.sop_hash } : null,
      createdAt: d.created_at,
    })),
  }
}
