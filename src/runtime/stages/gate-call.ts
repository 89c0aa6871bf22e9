import type { Logger } from 'pino'
import type { AuditWriter } from '../../audit/index.js'
import type { AuditRow } from '../../store/index.js'
import type { Caller, EdgeInfo, SkillContext, Skill } from '../../skill/index.js'
import { decidePolicy, inputHash, type Policies, type Approvals, type ApprovalView, type Grants } from '../../policy/index.js'
import type { CallCancel } from '../call-cancel.js'
import type { ApprovalMode } from '../invoke-options.js'
import { errorMessage } from './error-message.js'
import { interrupted } from './interrupted.js'
import { refusal, type CallStatus, type Refusal } from './refusal.js'
import { storeProblem } from './store-problem.js'

export interface GateDeps {
  policies: Policies
  approvals: Approvals
  /** Conversation grants: a call one covers runs without a request of its own. */
  grants: Grants
  audit: AuditWriter
  logger: Logger
  /** How long `wait: true` waits for a decision; a caller may ask for less, never more. */
  approvalWaitMs: number
}

export interface GateInput {
  skill: Skill
  /** The validated input. */
  input: unknown
  ctx: SkillContext
  /** The call's audit row: the gate names the approval request it files or uses on it. */
  row: AuditRow
  approval: ApprovalMode
  onBehalfOf: Caller | null | undefined
  /** Read only while waiting for a decision. */
  cancel: CallCancel
  /** The edge a host-scope call runs on: edge policies apply, and an approval holds for it only. */
  edge: EdgeInfo | null
}

/** Stage 4: policy, then approval when it says ASK. Null to run now, else why not. */
export async function gateCall(deps: GateDeps, { skill, input, ctx, row, approval, onBehalfOf, cancel, edge }: GateInput): Promise<Refusal | null> {
  const { approvals } = deps
  const rows = deps.policies.rows()
  let policy = decidePolicy({ skill: skill.key, skillClass: skill.class, caller: ctx.caller, agentId: ctx.agent, edge, policies: rows })
  // The stricter of the agent's policy and the person's it acts for.
  const behalf = onBehalfOf?.kind === 'user' ? onBehalfOf : null
  if (behalf) {
    const theirs = decidePolicy({ skill: skill.key, skillClass: skill.class, caller: behalf, agentId: ctx.agent, edge, policies: rows })
    if (theirs.decision === 'DENY')
      return refusal('denied', `skill "${skill.key}" is denied for ${behalf.name}, on whose behalf the agent acts: ${theirs.reason}`, 'denied')
    if (theirs.decision === 'ASK' && policy.decision === 'ALWAYS') policy = theirs
  }
  if (policy.decision === 'DENY') return refusal('denied', `skill "${skill.key}" is denied: ${policy.reason}`, 'denied')
  let reason = policy.reason
  if (policy.decision === 'ALWAYS') {
    if (!skill.needsApproval) return null
    let verdict: boolean | string
    try {
      verdict = await skill.needsApproval(input, ctx)
    } catch (error) {
      return refusal('executor_error', `needsApproval of skill "${skill.key}" failed: ${errorMessage(error)}`, 'error')
    }
    if (!verdict) return null
    reason = typeof verdict === 'string' ? verdict : `skill "${skill.key}" asks for approval of this input`
  }
  // The same input on another edge is another call: it needs its own approval.
  const hash = inputHash(skill.key, edge ? { input, edge: edge.id } : input)
  const wait = approval.mode === 'check' ? undefined : approval.wait
  // Mutating skills only: a dangerous call (or one whose class was raised since) is approved call by call.
  // Nor when the policy lets the call run and the skill asked about this input (needsApproval): a grant never covers other inputs.
  const askedByInput = policy.decision === 'ALWAYS'
  const granted = async () => {
    if (skill.class !== 'mutating' || policy.requirement.sop || askedByInput || !ctx.conversationId) return false
    const grant = await deps.grants.covering({
      skill: skill.key,
      caller: ctx.caller,
      agentId: ctx.agent,
      conversationId: ctx.conversationId,
      onBehalfOf: behalf,
      edgeId: edge?.id ?? null,
    })
    if (!grant) return false
    // It runs on the grant, not on a request: the request named stays unused.
    row.grant_id = grant.id
    row.approval_id = null
    return true
  }
  try {
    const claim = (id: string) =>
      approvals.claim({
        id,
        skill: skill.key,
        input,
        inputHash: hash,
        caller: ctx.caller,
        agentId: ctx.agent,
        callId: ctx.callId,
        requirement: policy.requirement,
      })
    const waitMs = typeof wait === 'number' ? Math.min(wait * 1000, deps.approvalWaitMs) : deps.approvalWaitMs
    const findOpen = () => approvals.findOpen({ skill: skill.key, inputHash: hash, caller: ctx.caller, agentId: ctx.agent, conversationId: ctx.conversationId })
    const approvalId =
      approval.mode === 'use'
        ? approval.approvalId
        : approval.mode === 'resume'
          ? await findOpen()
          : approval.mode === 'check'
            ? (approval.approvalId ?? (await findOpen()))
            : undefined
    if (approvalId && approval.mode === 'check') {
      // Look, never claim: claiming spends the approval.
      const view = await approvals.get(approvalId)
      if (view?.status === 'approved') {
        // It runs now, on an approval: report which.
        row.approval_id = approvalId
        return null
      }
      if (await granted()) return null
      if (view?.status === 'pending') {
        row.approval_id = approvalId
        return { ...refusal('approval_required', `approval request ${approvalId} is still pending`, 'approval_required', approvalDetails(view)), filed: false }
      }
    }
    if (approvalId && approval.mode !== 'check') {
      row.approval_id = approvalId
      // A caller already gone must not spend the approval: claiming is for a call that will run.
      if (cancel.aborted) return interrupted(cancel)
      let claimed = await claim(approvalId)
      // A request that can't be used (pending, already used, …) is no reason to refuse a call a grant covers.
      if (!claimed.ok && (await granted())) return null
      if (!claimed.ok && claimed.code === 'approval_required' && wait) {
        const outcome = await approvals.waitForDecision(approvalId, waitMs, cancel.signal)
        if (cancel.aborted) return interrupted(cancel)
        if (outcome !== 'pending') claimed = await claim(approvalId)
      }
      if (claimed.ok) return null
      const status: CallStatus = claimed.code === 'approval_required' ? 'approval_required' : claimed.code === 'not_found' ? 'error' : 'denied'
      return refusal(claimed.code, claimed.message, status, claimed.pending && approvalDetails(claimed.pending))
    }
    if (await granted()) return null
    const request = await approvals.create({
      skill: skill.key,
      skillClass: skill.class,
      inputJson: row.input,
      inputHash: hash,
      caller: ctx.caller,
      agentId: ctx.agent,
      conversationId: ctx.conversationId,
      callId: ctx.callId,
      reason,
      requirement: policy.requirement,
      onBehalfOf: behalf,
      edge: edge && { id: edge.id, name: edge.name },
    })
    row.approval_id = request.id
    const pending = refusal(
      'approval_required',
      `skill "${skill.key}" needs approval (${reason}): request ${request.id} waits for ` +
        `${request.approvalsRequired} approver${request.approvalsRequired === 1 ? '' : 's'}; once approved, invoke again with approvalId "${request.id}" and the same input`,
      'approval_required',
      approvalDetails(request),
    )
    if (!wait) return pending
    // The call is on record as waiting before it waits: a crash leaves an accurate row.
    await deps.audit.write({ ...row, status: 'approval_required', error_code: 'approval_required', error_message: pending.message })
    const outcome = await approvals.waitForDecision(request.id, waitMs, cancel.signal)
    // Claim only for a caller still there: a claimed approval is spent.
    if (cancel.aborted) return interrupted(cancel)
    if (outcome === 'approved') {
      const claimed = await claim(request.id)
      return claimed.ok ? null : refusal(claimed.code, claimed.message, 'denied')
    }
    if (outcome === 'rejected') return refusal('approval_rejected', `approval request ${request.id} was rejected`, 'denied')
    if (outcome === 'expired') return refusal('approval_expired', `approval request ${request.id} expired`, 'denied')
    return { ...pending, message: `${pending.message} (no decision within ${Math.ceil(waitMs / 1000)} s of waiting)` }
  } catch (error) {
    deps.logger.error({ err: error, callId: ctx.callId }, 'approval handling failed')
    return refusal('unavailable', `approvals can't be handled right now: ${storeProblem(error)}`, 'error')
  }
}

function approvalDetails(request: ApprovalView): Record<string, unknown> {
  return {
    approvalId: request.id,
    approvalsRequired: request.approvalsRequired,
    approverRole: request.approverRole,
    sopRequired: request.sopRequired,
    reason: request.reason,
    expiresAt: request.expiresAt,
  }
}
