import { randomFillSync } from 'node:crypto'
import { monotonicFactory } from 'ulid'
import { SpanStatusCode, context, isSpanContextValid, trace } from '@opentelemetry/api'
import type { Logger } from 'pino'
import type { Registry, Catalog } from '../registry/index.js'
import { type AuditWriter, redact, scrubText, secretForms } from '../audit/index.js'
import type { Caller, Envelope, NestedCallOptions, SkillContext } from '../skill/index.js'
import type { Connections } from '../secrets/index.js'
import type { Policies, Approvals, Grants } from '../policy/index.js'
import { ShuttingDown } from './abort-reasons.js'
import { CallCancel } from './call-cancel.js'
import { scrubbedLogger } from './scrubbed-logger.js'
import { failure, success } from './envelope.js'
import type { ApprovalMode, InvokeOptions } from './invoke-options.js'
import type { EdgeRouter } from './edge-router.js'
import {
  authoriseCall,
  connectCall,
  subjectsOf,
  type Connected,
  dispatchCall,
  finishCall,
  gateCall,
  isRefusal,
  openRow,
  recordCall,
  refusal,
  resolveCall,
  serialize,
  shownKey,
  validateInput,
  validateOutput,
  type Refusal,
} from './stages/index.js'

export interface PipelineDeps {
  registry: Registry
  catalog: Catalog
  audit: AuditWriter
  logger: Logger
  policies: Policies
  approvals: Approvals
  grants: Grants
  managerId: string
  maxResultBytes: number
  /** How long `wait: true` waits for an approval decision. */
  approvalWaitMs: number
  /** Where host-scope calls go; without it they answer edge_unavailable. */
  edges?: EdgeRouter
  /** Where declared secrets and settings are read; without it a skill that declares one can't run. */
  connections?: Pick<Connections, 'resolve'>
  /** Shared memory and learnings for a call's `ctx`; without them `ctx.memory` and `ctx.learn` refuse. */
  callServices?: (call: CallOrigin) => Pick<SkillContext, 'memory' | 'learn'>
  /** Told of each call that ended ok, after its final row (discovery learns from them). */
  onCallOk?: (call: { key: string; conversationId: string | null }) => void
}

/** Who a call's `ctx` acts for: what memory writes and learnings are recorded with. */
export interface CallOrigin {
  callId: string
  skill: string
  caller: Caller
  agentId: string | null
  /** The secret values the call was given: they must not land in shared memory or a learning. */
  scrub: ReadonlySet<string>
}

interface Parent {
  callId: string
  depth: number
  /** Secret values the parent was given: a child that receives one (in its input, say) must not record it either. */
  scrub: ReadonlySet<string>
}

const ASK: ApprovalMode = { mode: 'ask' }
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
const tracer = trace.getTracer('skillplane')
const unserved = () => Promise.reject(new Error('shared memory and learnings are not available here'))
const UNSERVED: Pick<SkillContext, 'memory' | 'learn'> = {
  memory: { get: unserved, set: unserved, delete: unserved, list: unserved },
  learn: unserved,
}

/**
 * The one invoke pipeline. It runs the stages in order (resolve, validate input, authorise, gate,
 * record, dispatch, validate output, finish; each in `stages/`), tracks calls in flight, and never
 * throws.
 */
export class Pipeline {
  readonly #deps: PipelineDeps
  readonly #nextId = monotonicFactory(pooledRandom)
  readonly #inFlight = new Map<string, CallCancel>()
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
    for (const cancel of this.#inFlight.values()) cancel.abort(new ShuttingDown())
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
    const name = shownKey(key)
    const span = tracer.startSpan(`skill ${name}`, { attributes: { 'skillplane.skill': name } })
    const spanContext = span.spanContext()
    const traceId = isSpanContextValid(spanContext) ? spanContext.traceId : null
    // No tracer and no trace to join: the span is a no-op, so the call skips the context switch.
    if (traceId === null && !span.isRecording()) return this.#call(key, rawInput, options, parent, null)
    const envelope = await context.with(trace.setSpan(context.active(), span), () => this.#call(key, rawInput, options, parent, traceId))
    span.setAttribute('skillplane.call_id', envelope.callId)
    if (!envelope.ok) span.setStatus({ code: SpanStatusCode.ERROR, message: envelope.error.code })
    span.end()
    return envelope
  }

  async #call(key: string, rawInput: unknown, options: InvokeOptions, parent: Parent | null, traceId: string | null): Promise<Envelope> {
    const deps = this.#deps
    // The id carries the start time: date ranges of the audit log bound ids by it.
    const startedAt = Date.now()
    const callId = this.#nextId(startedAt)
    const { caller } = options
    const approval = options.approval ?? ASK
    const input = rawInput ?? {}
    const row = openRow({
      callId,
      parentCallId: parent?.callId ?? null,
      key,
      caller,
      conversationId: options.conversationId,
      managerId: deps.managerId,
      startedAt,
      traceId,
    })
    const secrets = new Set<string>()
    // Secret values given to the executor (or to its parent): scrubbed from what the caller gets back, too.
    const injected = new Set<string>(parent?.scrub)
    const finish = (status: Refusal['status'], envelope: Envelope, outputSchema?: Record<string, unknown>) =>
      finishCall(deps, { row, startedAt, status, envelope, outputSchema, secrets, injected })
    const refuse = (r: Refusal) => {
      const envelope = failure(r.code, r.message, callId, r.details)
      // A gate-only check leaves no row unless it filed an approval request.
      const filed = r.filed ?? r.code === 'approval_required'
      return approval.mode === 'check' && !filed ? Promise.resolve(envelope) : finish(r.status, envelope)
    }

    const resolved = resolveCall({
      registry: deps.registry,
      catalog: deps.catalog,
      key,
      shownKey: row.skill_key,
      caller,
      agent: options.agent,
      edgeRef: options.edgeId,
      edges: deps.edges,
    })
    const inputJson = serialize(() =>
      redact(input, ('skill' in resolved ? resolved.skill : resolved.named)?.input.jsonSchema, {
        collect: secrets,
        ...(injected.size > 0 && { scrub: injected }),
      }),
    )
    row.input = inputJson ?? '"[input is not JSON]"'
    if (this.#closing) return refuse(refusal('unavailable', 'skillplane is shutting down; retry on another manager', 'interrupted'))
    row.agent_id = resolved.agentId
    if ('refusal' in resolved) return refuse(resolved.refusal)
    const agentId = resolved.agentId
    const edge = resolved.edge
    row.edge_id = edge?.id ?? null
    row.edge_name = edge?.name ?? null

    const validated = validateInput(resolved.skill, input, inputJson)
    if (isRefusal(validated)) return refuse(validated)

    const denied = authoriseCall({ catalog: deps.catalog, skill: resolved.skill, caller, agentId, onBehalfOf: options.onBehalfOf, depth: parent?.depth ?? 0 })
    if (denied) return refuse(denied)

    // Checked before the gate, so nobody approves a call that can't run; opened for the executor only after it.
    const subjects = subjectsOf(caller, agentId, options.onBehalfOf)
    const present = await connectCall(deps.connections, resolved.skill, subjects)
    if (isRefusal(present)) return refuse(present)
    const opened: { values: Connected | null } = { values: null }

    const cancel = new CallCancel()
    const outer = options.signal
    const forward = () => cancel.abort(outer?.reason)
    if (outer?.aborted) forward()
    else outer?.addEventListener('abort', forward, { once: true })
    this.#inFlight.set(callId, cancel)
    // What the skill logs is scrubbed of both: its secret inputs and the secrets it was given.
    const scrub = () => (secrets.size === 0 ? injected : injected.size === 0 ? secrets : new Set([...secrets, ...injected]))
    const ctx = this.#context(callId, parent, caller, agentId, edge?.id ?? null, options, cancel, resolved.skill.key, opened, injected, scrub)
    try {
      const gate = await gateCall(deps, {
        skill: resolved.skill,
        input: validated.value,
        ctx,
        row,
        approval,
        onBehalfOf: options.onBehalfOf,
        cancel,
        edge,
      })
      if (gate) return refuse(gate)
      if (approval.mode === 'check') return success({ wouldRun: true, approvalId: row.approval_id }, callId)
      // Opened again: a value rotated or deleted while the call waited for approval is not used.
      const connected = present.secrets.size + present.settings.size === 0 ? present : await connectCall(deps.connections, resolved.skill, subjects)
      if (isRefusal(connected)) return refuse(connected)
      for (const value of connected.secrets.values()) conceal(injected, value)
      opened.values = connected

      const unrecorded = await recordCall(deps, row)
      // Without its running row the call never ran, so it has no final row either.
      if (unrecorded) return failure(unrecorded.code, unrecorded.message, callId)

      const dispatched = await dispatchCall(
        resolved.skill,
        validated.value,
        ctx,
        cancel,
        edge && deps.edges ? { router: deps.edges, target: edge, secrets: connected.secrets } : undefined,
      )
      if (isRefusal(dispatched)) return finish(dispatched.status, failure(dispatched.code, dispatched.message, callId, dispatched.details))
      const output = validateOutput(resolved.skill, dispatched.data)
      if (isRefusal(output)) return finish(output.status, failure(output.code, output.message, callId, output.details))
      const done = await finish('ok', success(output.value === undefined ? null : output.value, callId), resolved.skill.output?.jsonSchema)
      if (done.ok && deps.onCallOk) {
        try {
          deps.onCallOk({ key: resolved.skill.key, conversationId: options.conversationId ?? null })
        } catch (error) {
          deps.logger.warn({ err: error, callId }, 'a call observer failed')
        }
      }
      return done
    } finally {
      outer?.removeEventListener('abort', forward)
      this.#inFlight.delete(callId)
    }
  }

  #context(
    callId: string,
    parent: Parent | null,
    caller: Caller,
    agentId: string | null,
    edgeId: string | null,
    options: InvokeOptions,
    cancel: CallCancel,
    key: string,
    opened: { values: Connected | null },
    injected: Set<string>,
    scrub: () => ReadonlySet<string>,
  ): SkillContext {
    const logger = this.#deps.logger
    const callServices = this.#deps.callServices
    let child: SkillContext['logger'] | undefined
    let services: Pick<SkillContext, 'memory' | 'learn'> | undefined
    const declared = (kind: 'secret' | 'setting') => (name: string) => {
      if (!opened.values) throw new Error(`skill "${key}": ${kind}s are opened once the call has passed the gate (needsApproval can't read them)`)
      const value = (kind === 'secret' ? opened.values.secrets : opened.values.settings).get(name)
      if (value === undefined) throw new Error(`skill "${key}" did not declare the ${kind} ${JSON.stringify(name)}: list it in its ${kind}s`)
      return value
    }
    return {
      callId,
      parentCallId: parent?.callId ?? null,
      caller,
      agent: agentId,
      conversationId: options.conversationId ?? null,
      edgeId,
      get signal() {
        return cancel.signal
      },
      get logger() {
        return (child ??= scrubbedLogger(logger.child({ callId }), scrub))
      },
      secrets: { get: declared('secret'), conceal: (derived) => conceal(injected, derived) },
      settings: { get: declared('setting') },
      // Made on first use: most calls never touch memory or learnings.
      get memory() {
        return (services ??= callServices?.({ callId, skill: key, caller, agentId, scrub: injected }) ?? UNSERVED).memory
      },
      learn: (learning) => (services ??= callServices?.({ callId, skill: key, caller, agentId, scrub: injected }) ?? UNSERVED).learn(learning),
      // Only while the call runs, and only numbers: a report can come from another process.
      progress: (update) => {
        if (!options.onProgress || !this.#inFlight.has(callId) || !Number.isFinite(update?.progress)) return
        const total = Number.isFinite(update.total) ? update.total : undefined
        const text = typeof update.message === 'string' ? update.message.slice(0, 1000) : undefined
        const message = text !== undefined && injected.size > 0 ? scrubText(text, injected) : text
        try {
          options.onProgress({ progress: update.progress, ...(total !== undefined && { total }), ...(message !== undefined && { message }) })
        } catch (error) {
          logger.warn({ err: error, callId }, 'a progress listener failed')
        }
      },
      // A definition stands for its key; the callee runs as registered, whatever object was passed.
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the overloads type the result by the callee's output schema, which the pipeline checks
      invoke: (skill: string | { key: string }, input: unknown, nested?: NestedCallOptions): Promise<Envelope<any>> =>
        this.#track(
          this.#invoke(
            typeof skill === 'string' ? skill : skill.key,
            input,
            {
              caller,
              agent: agentId,
              conversationId: options.conversationId ?? null,
              // An edge is named per call: a nested call runs on the manager unless it names one.
              edgeId: nested?.edgeId ?? null,
              signal: cancel.signal,
              onBehalfOf: options.onBehalfOf ?? null,
            },
            { callId, depth: (parent?.depth ?? 0) + 1, scrub: injected },
          ),
        ),
    }
  }
}

// The forms a client library sends a secret in, or a service echoes it in, are scrubbed too.
function conceal(injected: Set<string>, value: string): void {
  for (const form of secretForms(value)) injected.add(form)
}
