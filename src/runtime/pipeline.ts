import { randomFillSync } from 'node:crypto'
import { monotonicFactory } from 'ulid'
import { SpanStatusCode, context, isSpanContextValid, trace } from '@opentelemetry/api'
import { scrubText } from '../audit/index.js'
import type { Envelope, NestedCallOptions, SkillContext } from '../skill/index.js'
import { ShuttingDown } from './abort-reasons.js'
import { Call, shownKey, type CallParent } from './call.js'
import type { CallCancel } from './call-cancel.js'
import { scrubbedLogger } from './scrubbed-logger.js'
import type { InvokeOptions } from './invoke-options.js'
import type { PipelineDeps } from './pipeline-deps.js'
import { isRefusal } from './refusal.js'
import type { Stage, StageDeps } from './stage.js'
import {
  authoriseCall,
  connectCall,
  dispatchCall,
  finishCall,
  gateCall,
  reconnectCall,
  recordCall,
  resolveCall,
  trackCall,
  validateInput,
  validateOutput,
} from './stages/index.js'

/**
 * Every call's stages, in order (docs/architecture.md's table). The first that stops a call ends
 * it; a call no envelope stopped ends in `finishCall`, with its final audit row.
 */
const STAGES: readonly Stage[] = [
  resolveCall,
  validateInput,
  authoriseCall,
  connectCall,
  trackCall,
  gateCall,
  reconnectCall,
  recordCall,
  dispatchCall,
  validateOutput,
]

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

/** The one invoke pipeline: it runs `STAGES` over each call, tracks calls in flight, and never throws. */
export class Pipeline {
  readonly #deps: StageDeps
  readonly #nextId = monotonicFactory(pooledRandom)
  readonly #inFlight = new Map<string, CallCancel>()
  #active = 0
  #idle: (() => void) | null = null
  #closing = false

  constructor(deps: PipelineDeps) {
    this.#deps = { ...deps, closing: () => this.#closing, inFlight: this.#inFlight, context: (call) => this.#context(call) }
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
  async #invoke(key: string, input: unknown, options: InvokeOptions, parent: CallParent | null): Promise<Envelope> {
    const name = shownKey(key)
    const span = tracer.startSpan(`skill ${name}`, { attributes: { 'skillplane.skill': name } })
    const spanContext = span.spanContext()
    const traceId = isSpanContextValid(spanContext) ? spanContext.traceId : null
    // The id carries the start time: date ranges of the audit log bound ids by it.
    const startedAt = Date.now()
    const call = new Call({ id: this.#nextId(startedAt), startedAt, traceId, key, shownKey: name, input: input ?? {}, options, parent })
    // No tracer and no trace to join: the span is a no-op, so the call skips the context switch.
    if (traceId === null && !span.isRecording()) return this.#call(call)
    const envelope = await context.with(trace.setSpan(context.active(), span), () => this.#call(call))
    span.setAttribute('skillplane.call_id', envelope.callId)
    if (!envelope.ok) span.setStatus({ code: SpanStatusCode.ERROR, message: envelope.error.code })
    span.end()
    return envelope
  }

  async #call(call: Call): Promise<Envelope> {
    const deps = this.#deps
    try {
      for (const stage of STAGES) {
        let stop = stage(call, deps)
        if (stop instanceof Promise) stop = await stop
        if (stop === undefined) continue
        if (!isRefusal(stop)) return stop
        call.refusal = stop
        // Not awaited: a refused call leaves the calls in flight (and hears no more progress) as its final row is written.
        return finishCall(call, deps)
      }
      // An ok call is in flight until its final row is written.
      return await finishCall(call, deps)
    } finally {
      if (call.cancel) {
        call.cancel.release()
        this.#inFlight.delete(call.id)
      }
    }
  }

  /** The `ctx` of a call's executor: what it may know of the call, and what it may do through it. */
  #context(call: Call): SkillContext {
    const logger = this.#deps.logger
    const callServices = this.#deps.callServices
    const { id: callId, caller, agentId, options, injected } = call
    const cancel = call.cancel!
    const key = call.skill.key
    let child: SkillContext['logger'] | undefined
    let services: Pick<SkillContext, 'memory' | 'learn'> | undefined
    const declared = (kind: 'secret' | 'setting') => (name: string) => {
      const opened = call.opened
      if (!opened) throw new Error(`skill "${key}": ${kind}s are opened once the call has passed the gate (needsApproval can't read them)`)
      const value = (kind === 'secret' ? opened.secrets : opened.settings).get(name)
      if (value === undefined) throw new Error(`skill "${key}" did not declare the ${kind} ${JSON.stringify(name)}: list it in its ${kind}s`)
      return value
    }
    return {
      callId,
      parentCallId: call.parent?.callId ?? null,
      caller,
      agent: agentId,
      conversationId: call.conversationId,
      edgeId: call.edge?.id ?? null,
      get signal() {
        return cancel.signal
      },
      get logger() {
        return (child ??= scrubbedLogger(logger.child({ callId }), () => call.scrub()))
      },
      secrets: { get: declared('secret'), conceal: (derived) => call.conceal(derived) },
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
              conversationId: call.conversationId,
              // An edge is named per call: a nested call runs on the manager unless it names one.
              edgeId: nested?.edgeId ?? null,
              signal: cancel.signal,
              onBehalfOf: options.onBehalfOf ?? null,
            },
            { callId, depth: (call.parent?.depth ?? 0) + 1, scrub: injected },
          ),
        ),
    }
  }
}
