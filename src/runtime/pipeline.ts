import { randomFillSync } from 'node:crypto'
import { basename } from 'node:path'
import { monotonicFactory } from 'ulid'
import { SpanStatusCode, context, isSpanContextValid, trace } from '@opentelemetry/api'
import type { Logger } from 'pino'
import type { Registry } from '../registry/registry.js'
import type { Catalog } from '../registry/catalog.js'
import type { AuditWriter } from '../audit/audit-writer.js'
import type { AuditRow } from '../store/audit-repository.js'
import type { Caller, Envelope, ErrorCode, SkillContext } from '../skill/skill-types.js'
import type { Skill } from '../skill/create-skill.js'
import { describeIssues } from '../skill/compile-schema.js'
import { checkJsonShape } from '../skill/check-json-shape.js'
import { databaseUnavailable } from '../store/database-unavailable.js'
import { redact, scrubText } from '../audit/redact.js'
import { authorize } from '../policy/authorize.js'
import { decidePolicy } from '../policy/decide-policy.js'
import { inputHash } from '../policy/input-hash.js'
import type { Policies } from '../policy/policies.js'
import type { Approvals, ApprovalView } from '../policy/approvals.js'
import { DeadlineExceeded, ShuttingDown, raceAbort } from './abort-reasons.js'
import { isSkillError } from './skill-error.js'
import { failure, success } from './envelope.js'

export interface InvokeOptions {
  caller: Caller
  /** Agent the call is made for: id, name or alias. An agent key always acts for its own agent. */
  agent?: string | null
  conversationId?: string | null
  edgeId?: string | null
  /** Aborting it cancels the call (e.g. the HTTP client went away). */
  signal?: AbortSignal
  /** Resume with an approved request: runs once, and only with the input it was approved for. */
  approvalId?: string
  /** When approval is needed, wait for the decision: true for the default time, or seconds. */
  wait?: boolean | number
  /**
   * Without an approvalId, resume this caller's open request for exactly this call (same skill,
   * agent and input) instead of asking again: for callers that can only repeat a call (LLM tools).
   */
  resume?: boolean
  /**
   * The person who had an agent make this call (an agent run): their role and policies apply too,
   * and they may not approve it.
   */
  onBehalfOf?: Caller | null
  /**
   * Stop after the gate: answer ok `{ wouldRun: true, approvalId }` when the call would run now
   * (approvalId: the approved request it would use, or null), or
   * approval_required (filing or finding the request) when it needs a human, and run nothing.
   * Only a filed approval request is audited. For surfaces that ask before calling (AI SDK tools).
   */
  gateOnly?: boolean
}

export interface PipelineDeps {
  registry: Registry
  catalog: Catalog
  audit: AuditWriter
  logger: Logger
  policies: Policies
  approvals: Approvals
  managerId: string
  maxResultBytes: number
  /** How long `wait: true` waits for an approval decision. */
  approvalWaitMs: number
}

type Status = 'ok' | 'error' | 'denied' | 'timeout' | 'interrupted' | 'approval_required'

interface Parent {
  callId: string
  depth: number
}

const MAX_DEPTH = 8
// ulid's default PRNG makes one crypto call per character; drawing from a pooled crypto buffer is
// as random and much cheaper on the hot path.
const pool = new Uint8Array(4096)
let poolAt = pool.length
const pooledRandom = () => {
  if (poolAt === pool.length) {
    randomFillSync(pool)
    poolAt = 0
  }
  return pool[poolAt++]! / 256
}
const MAX_KEY_IN_AUDIT = 200
const tracer = trace.getTracer('skillplane')

/**
 * The one invoke pipeline: resolve, validate, authorise, audit, dispatch with a deadline,
 * validate output, finish the audit row, return the envelope. It never throws.
 */
export class Pipeline {
  readonly #deps: PipelineDeps
  readonly #nextId = monotonicFactory(pooledRandom)
  readonly #inFlight = new Map<string, AbortController>()
  #active = 0
  #idle: (() => void) | null = null
  #closing = false

  constructor(deps: PipelineDeps) {
    this.#deps = deps
  }

  invoke(key: string, input: unknown, options: InvokeOptions): Promise<Envelope> {
    return this.#track(this.#invoke(key, input, options, null))
  }

  /** Refuse new calls, interrupt running ones and wait (bounded) until every call has its final row. */
  async close(graceMs = 5_000): Promise<void> {
    this.#closing = true
    for (const controller of this.#inFlight.values()) controller.abort(new ShuttingDown())
    if (this.#active === 0) return
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, graceMs)
      this.#idle = () => {
        clearTimeout(timer)
        resolve()
      }
    })
  }

  async #track(promise: Promise<Envelope>): Promise<Envelope> {
    this.#active++
    try {
      return await promise
    } finally {
      if (--this.#active === 0 && this.#idle) this.#idle()
    }
  }

  /**
   * One span per call (a no-op until an OpenTelemetry SDK is registered): the executor runs inside
   * it, so nested calls and the executor's own spans are its children, and its trace id is audited.
   */
  async #invoke(key: string, rawInput: unknown, options: InvokeOptions, parent: Parent | null): Promise<Envelope> {
    const name = typeof key === 'string' ? key.slice(0, MAX_KEY_IN_AUDIT) : String(key)
    const span = tracer.startSpan(`skill ${name}`, { attributes: { 'skillplane.skill': name } })
    const spanContext = span.spanContext()
    const traceId = isSpanContextValid(spanContext) ? spanContext.traceId : null
    const envelope = await context.with(trace.setSpan(context.active(), span), () => this.#call(key, rawInput, options, parent, traceId))
    span.setAttribute('skillplane.call_id', envelope.callId)
    if (!envelope.ok) span.setStatus({ code: SpanStatusCode.ERROR, message: envelope.error.code })
    span.end()
    return envelope
  }

  async #call(key: string, rawInput: unknown, options: InvokeOptions, parent: Parent | null, traceId: string | null): Promise<Envelope> {
    const { registry, catalog } = this.#deps
    const callId = this.#nextId()
    const startedAt = Date.now()
    const caller = options.caller
    const input = rawInput ?? {}
    const row: AuditRow = {
      call_id: callId,
      parent_call_id: parent?.callId ?? null,
      skill_key: typeof key === 'string' ? key.slice(0, MAX_KEY_IN_AUDIT) : String(key),
      caller_id: caller.id,
      caller_name: caller.name,
      caller_kind: caller.kind,
      caller_role: caller.kind === 'agent' ? 'agent' : caller.role,
      agent_id: null,
      conversation_id: options.conversationId ?? null,
      edge_id: options.edgeId ?? null,
      manager_id: this.#deps.managerId,
      input: '{}',
      result: null,
      result_truncated: 0,
      error_code: null,
      error_message: null,
      status: 'running',
      started_at: new Date(startedAt).toISOString(),
      finished_at: null,
      duration_ms: null,
      approval_id: null,
      trace_id: traceId,
    }
    const secrets = new Set<string>()
    // A gate-only check leaves no row unless it filed an approval request.
    const refuse = (code: ErrorCode, message: string, status: Status, details?: Record<string, unknown>, filed = code === 'approval_required') =>
      options.gateOnly && !filed
        ? Promise.resolve(failure(code, message, callId, details))
        : this.#finish(row, startedAt, status, failure(code, message, callId, details), undefined, secrets)

    // 1. resolve the skill (and the agent the call is for)
    const skill = registry.get(key)
    const inputJson = serialize(() => redact(input, skill?.input.jsonSchema, { collect: secrets }))
    row.input = inputJson ?? '"[input is not JSON]"'
    if (this.#closing) return refuse('unavailable', 'skillplane is shutting down; retry on another manager', 'interrupted')
    let agentId: string | null = null
    if (caller.kind === 'agent') {
      agentId = caller.agentId
      if (options.agent && catalog.resolveAgent(options.agent) !== agentId) {
        row.agent_id = agentId
        return refuse('denied', `an agent key acts only for its own agent "${agentId}", not "${options.agent}"`, 'denied')
      }
    } else if (options.agent) {
      agentId = catalog.resolveAgent(options.agent) ?? null
      if (agentId === null) return refuse('invalid_input', `unknown agent "${options.agent}"`, 'error')
    }
    row.agent_id = agentId
    // An agent key's registry is its bound skills: others answer exactly like unknown keys.
    if (!skill || (caller.kind === 'agent' && !catalog.isBound(caller.agentId, skill.key))) {
      return refuse('not_found', `no skill with key "${row.skill_key}"`, 'error')
    }
    if (!catalog.isEnabled(skill.key)) return refuse('unavailable', `skill "${skill.key}" is disabled in the catalog`, 'error')
    if (skill.scope === 'host') {
      return refuse('edge_unavailable', `skill "${skill.key}" runs on edge agents and no edge is connected`, 'error')
    }
    let down: string | null
    try {
      down = skill.unavailable()
    } catch (error) {
      down = `its availability check failed: ${errorMessage(error)}`
    }
    if (down !== null) return refuse('unavailable', `skill "${skill.key}" is unavailable: ${down}`, 'error')

    // 2. validate input
    if (inputJson === undefined) return refuse('invalid_input', 'input must be a JSON value', 'error')
    const shape = checkJsonShape(input, { forbidProtoKey: true })
    if (shape) return refuse('invalid_input', `invalid input: the input ${shape}`, 'error')
    let checked: ReturnType<typeof skill.input.validate>
    try {
      checked = skill.input.validate(input)
    } catch (error) {
      // A refine or transform in the skill's own schema threw: the input is what it choked on.
      return refuse('invalid_input', `input validation of skill "${skill.key}" failed: ${errorMessage(error)}`, 'error')
    }
    if (!checked.ok) {
      return refuse('invalid_input', describeIssues('invalid input', checked.issues), 'error', { issues: checked.issues })
    }

    // 3. authorise
    const reason = authorize({ key: skill.key, skillClass: skill.class, caller, agentId, isBound: (a, k) => catalog.isBound(a, k) })
    if (reason !== null) return refuse('denied', reason, 'denied')
    // An agent acting for a person does no more than that person may.
    const behalf = options.onBehalfOf?.kind === 'user' ? options.onBehalfOf : null
    const forPerson = behalf && authorize({ key: skill.key, skillClass: skill.class, caller: behalf, agentId: null, isBound: () => true })
    if (forPerson) return refuse('denied', `on behalf of ${behalf.name}: ${forPerson}`, 'denied')
    if (parent && parent.depth >= MAX_DEPTH) {
      return refuse('denied', `nested calls are limited to a depth of ${MAX_DEPTH}`, 'denied')
    }

    const controller = new AbortController()
    const outer = options.signal
    const forward = () => controller.abort(outer?.reason)
    if (outer?.aborted) forward()
    else outer?.addEventListener('abort', forward, { once: true })
    this.#inFlight.set(callId, controller)
    const ctx = this.#context(callId, parent, caller, agentId, options, controller.signal)
    try {
      // 4. policy, and approval when it says ASK
      const gate = await this.#gate(skill, checked.value, ctx, row, options, controller.signal)
      if (gate) return refuse(gate.code, gate.message, gate.status, gate.details, gate.filed)
      if (options.gateOnly) return success({ wouldRun: true, approvalId: row.approval_id }, callId)

      // 5. the running row is durable before the executor starts
      try {
        await this.#deps.audit.write({ ...row, status: 'running' })
      } catch (error) {
        this.#deps.logger.error({ err: error, callId }, 'audit write failed; call refused')
        return failure('unavailable', `the audit log can't be written, so the call was not run: ${storeProblem(error)}`, callId)
      }
      return await this.#dispatch(skill, checked.value, ctx, row, startedAt, controller, secrets)
    } finally {
      outer?.removeEventListener('abort', forward)
      this.#inFlight.delete(callId)
    }
  }

  /** Stage 4: null to run now, else why not (DENY, approval pending, rejected, expired, ...). */
  async #gate(
    skill: Skill,
    input: unknown,
    ctx: SkillContext,
    row: AuditRow,
    options: InvokeOptions,
    signal: AbortSignal,
  ): Promise<{ code: ErrorCode; message: string; status: Status; details?: Record<string, unknown>; filed?: boolean } | null> {
    const { approvals } = this.#deps
    const rows = this.#deps.policies.rows()
    let policy = decidePolicy({ skill: skill.key, skillClass: skill.class, caller: ctx.caller, agentId: ctx.agent, policies: rows })
    // The stricter of the agent's policy and the person's it acts for.
    const behalf = options.onBehalfOf?.kind === 'user' ? options.onBehalfOf : null
    if (behalf) {
      const theirs = decidePolicy({ skill: skill.key, skillClass: skill.class, caller: behalf, agentId: ctx.agent, policies: rows })
      if (theirs.decision === 'DENY') return { code: 'denied', message: `skill "${skill.key}" is denied for ${behalf.name}, on whose behalf the agent acts: ${theirs.reason}`, status: 'denied' }
      if (theirs.decision === 'ASK' && policy.decision === 'ALWAYS') policy = theirs
    }
    if (policy.decision === 'DENY') return { code: 'denied', message: `skill "${skill.key}" is denied: ${policy.reason}`, status: 'denied' }
    let reason = policy.reason
    if (policy.decision === 'ALWAYS') {
      if (!skill.needsApproval) return null
      let verdict: boolean | string
      try {
        verdict = await skill.needsApproval(input, ctx)
      } catch (error) {
        return { code: 'executor_error', message: `needsApproval of skill "${skill.key}" failed: ${errorMessage(error)}`, status: 'error' }
      }
      if (!verdict) return null
      reason = typeof verdict === 'string' ? verdict : `skill "${skill.key}" asks for approval of this input`
    }
    const hash = inputHash(skill.key, input)
    try {
      const claim = (id: string) =>
        approvals.claim({ id, skill: skill.key, input, inputHash: hash, caller: ctx.caller, agentId: ctx.agent, callId: ctx.callId, requirement: policy.requirement })
      // A caller may ask to wait less than the configured bound, never longer.
      const waitMs = typeof options.wait === 'number' ? Math.min(options.wait * 1000, this.#deps.approvalWaitMs) : this.#deps.approvalWaitMs
      const approvalId = options.approvalId ?? (options.resume ? await approvals.findOpen({ skill: skill.key, inputHash: hash, caller: ctx.caller, agentId: ctx.agent, conversationId: ctx.conversationId }) : undefined)
      if (approvalId && options.gateOnly) {
        // Look, never claim: claiming spends the approval.
        const view = await approvals.get(approvalId)
        if (view?.status === 'approved') {
          // It runs now, on an approval: report which.
          row.approval_id = approvalId
          return null
        }
        if (view?.status === 'pending') {
          row.approval_id = approvalId
          return { code: 'approval_required', message: `approval request ${approvalId} is still pending`, status: 'approval_required', details: approvalDetails(view), filed: false }
        }
      }
      if (approvalId && !options.gateOnly) {
        row.approval_id = approvalId
        // A caller already gone must not spend the approval: claiming is for a call that will run.
        if (signal.aborted) return interrupted(signal)
        let claimed = await claim(approvalId)
        if (!claimed.ok && claimed.code === 'approval_required' && options.wait) {
          const outcome = await approvals.waitForDecision(approvalId, waitMs, signal)
          if (signal.aborted) return interrupted(signal)
          if (outcome !== 'pending') claimed = await claim(approvalId)
        }
        if (claimed.ok) return null
        const status: Status = claimed.code === 'approval_required' ? 'approval_required' : claimed.code === 'not_found' ? 'error' : 'denied'
        return { code: claimed.code, message: claimed.message, status, ...(claimed.pending && { details: approvalDetails(claimed.pending) }) }
      }
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
      })
      row.approval_id = request.id
      const pending = {
        code: 'approval_required' as const,
        message:
          `skill "${skill.key}" needs approval (${reason}): request ${request.id} waits for ` +
          `${request.approvalsRequired} approver${request.approvalsRequired === 1 ? '' : 's'}; once approved, invoke again with approvalId "${request.id}" and the same input`,
        status: 'approval_required' as const,
        details: approvalDetails(request),
      }
      if (!options.wait) return pending
      // The call is on record as waiting before it waits: a crash leaves an accurate row.
      await this.#deps.audit.write({ ...row, status: 'approval_required', error_code: 'approval_required', error_message: pending.message })
      const outcome = await approvals.waitForDecision(request.id, waitMs, signal)
      // Claim only for a caller still there: a claimed approval is spent.
      if (signal.aborted) return interrupted(signal)
      if (outcome === 'approved') {
        const claimed = await claim(request.id)
        return claimed.ok ? null : { code: claimed.code, message: claimed.message, status: 'denied' }
      }
      if (outcome === 'rejected') return { code: 'approval_rejected', message: `approval request ${request.id} was rejected`, status: 'denied' }
      if (outcome === 'expired') return { code: 'approval_expired', message: `approval request ${request.id} expired`, status: 'denied' }
      return { ...pending, message: `${pending.message} (no decision within ${Math.ceil(waitMs / 1000)} s of waiting)` }
    } catch (error) {
      this.#deps.logger.error({ err: error, callId: ctx.callId }, 'approval handling failed')
      return { code: 'unavailable', message: `approvals can't be handled right now: ${storeProblem(error)}`, status: 'error' }
    }
  }

  /** Stages 6-8: run with a deadline, validate the output, finish the audit row. */
  async #dispatch(
    skill: Skill,
    input: unknown,
    ctx: SkillContext,
    row: AuditRow,
    startedAt: number,
    controller: AbortController,
    secrets: ReadonlySet<string>,
  ): Promise<Envelope> {
    const callId = ctx.callId
    trace.getActiveSpan()?.setAttribute('skillplane.class', skill.class)
    const timer = setTimeout(() => controller.abort(new DeadlineExceeded(skill.timeoutMs)), skill.timeoutMs)
    let envelope: Envelope
    let status: Status
    try {
      const run = () => {
        // A call cancelled before its turn never starts its executor.
        if (controller.signal.aborted) throw controller.signal.reason
        return skill.run(input, ctx)
      }
      const data = await raceAbort(Promise.resolve().then(run), controller.signal)
      // 7. validate output
      const shape = checkJsonShape(data)
      const out = shape ? null : skill.output ? skill.output.validate(data) : { ok: true as const, value: data }
      if (!out) {
        status = 'error'
        envelope = failure('invalid_output', `skill "${skill.key}" returned invalid output: the result ${shape}`, callId)
      } else if (!out.ok) {
        status = 'error'
        envelope = failure('invalid_output', describeIssues(`skill "${skill.key}" returned invalid output`, out.issues), callId, {
          issues: out.issues,
        })
      } else {
        status = 'ok'
        envelope = success(out.value === undefined ? null : out.value, callId)
      }
    } catch (error) {
      const reasonForAbort = controller.signal.aborted ? controller.signal.reason : undefined
      if (reasonForAbort instanceof DeadlineExceeded) {
        status = 'timeout'
        envelope = failure('timeout', `skill "${skill.key}": ${reasonForAbort.message}`, callId)
      } else if (controller.signal.aborted) {
        const cut = interrupted(controller.signal)
        status = cut.status
        envelope = failure(cut.code, cut.message, callId)
      } else if (isSkillError(error)) {
        status = error.code === 'denied' ? 'denied' : 'error'
        envelope = failure(error.code, error.message, callId)
      } else {
        status = 'error'
        envelope = failure('executor_error', `skill "${skill.key}" failed: ${errorMessage(error)}`, callId)
      }
    } finally {
      clearTimeout(timer)
    }
    // 8. finish the audit row, then return
    return this.#finish(row, startedAt, status, envelope, skill.output?.jsonSchema, secrets)
  }

  async #finish(
    running: AuditRow,
    startedAt: number,
    status: Status,
    envelope: Envelope,
    outputSchema?: Record<string, unknown>,
    secrets?: ReadonlySet<string>,
  ): Promise<Envelope> {
    const finishedAt = Date.now()
    const row: AuditRow = { ...running, status, finished_at: new Date(finishedAt).toISOString(), duration_ms: finishedAt - startedAt }
    if (envelope.ok) {
      // Input secrets an executor echoes back are scrubbed from the stored result too.
      const data = envelope.data
      const json = serialize(() => redact(data, outputSchema, { scrub: secrets }))
      if (json === undefined) {
        row.status = 'error'
        envelope = failure('invalid_output', 'the result is not JSON-serializable', running.call_id)
      } else if (Buffer.byteLength(json) > this.#deps.maxResultBytes) {
        row.result = truncateUtf8(json, this.#deps.maxResultBytes)
        row.result_truncated = 1
      } else {
        row.result = json
      }
    }
    if (!envelope.ok) {
      row.error_code = envelope.error.code
      row.error_message = secrets?.size ? scrubText(envelope.error.message, secrets) : envelope.error.message
    }
    try {
      await this.#deps.audit.finish(row)
    } catch (error) {
      // Not even the local backlog took it: the running row stays, and recovery marks it interrupted.
      this.#deps.logger.error({ err: error, callId: row.call_id }, 'audit write of a finished call failed')
    }
    return envelope
  }

  #context(
    callId: string,
    parent: Parent | null,
    caller: Caller,
    agentId: string | null,
    options: InvokeOptions,
    signal: AbortSignal,
  ): SkillContext {
    const logger = this.#deps.logger
    let child: Logger | undefined
    return {
      callId,
      parentCallId: parent?.callId ?? null,
      caller,
      agent: agentId,
      conversationId: options.conversationId ?? null,
      edgeId: options.edgeId ?? null,
      signal,
      get logger() {
        return (child ??= logger.child({ callId }))
      },
      invoke: (key, input) =>
        this.#track(
          this.#invoke(
            key,
            input,
            { caller, agent: agentId, conversationId: options.conversationId ?? null, edgeId: options.edgeId ?? null, signal, onBehalfOf: options.onBehalfOf ?? null },
            { callId, depth: (parent?.depth ?? 0) + 1 },
          ),
        ),
    }
  }
}

function interrupted(signal: AbortSignal): { code: ErrorCode; message: string; status: Status } {
  const shutdown = signal.reason instanceof ShuttingDown
  return { code: 'unavailable', message: shutdown ? (signal.reason as Error).message : 'the call was cancelled by its caller', status: 'interrupted' }
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

/** JSON of what make() returns, or undefined when making or serialising it throws. */
function serialize(make: () => unknown): string | undefined {
  try {
    return JSON.stringify(make())
  } catch {
    return undefined
  }
}

/** What to tell a caller about a failed store operation: never the database's address or files. */
function storeProblem(error: unknown): string {
  const down = databaseUnavailable(error)
  return down ? `the database is unavailable: ${down}; retry in a few seconds` : 'the database failed (see the server log)'
}

function errorMessage(error: unknown): string {
  if (error instanceof Error) {
    // Node's file errors name the server path; callers get the file's own name only.
    const { path, dest } = error as NodeJS.ErrnoException & { dest?: string }
    let message = error.message || error.name
    for (const full of [path, dest]) if (typeof full === 'string' && full.includes('/')) message = message.replaceAll(full, basename(full))
    return message
  }
  return typeof error === 'string' ? error : (serialize(() => error) ?? String(error))
}

function truncateUtf8(text: string, maxBytes: number): string {
  const buffer = Buffer.from(text)
  // Cut on a character boundary: back up over UTF-8 continuation bytes.
  let end = maxBytes
  while (end > 0 && (buffer[end]! & 0xc0) === 0x80) end--
  return buffer.subarray(0, end).toString()
}
