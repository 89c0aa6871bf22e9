import { randomFillSync } from 'node:crypto'
import { monotonicFactory } from 'ulid'
import { SpanStatusCode, context, isSpanContextValid, trace } from '@opentelemetry/api'
import type { Envelope } from '../skill/index.js'
import { ShuttingDown } from './abort-reasons.js'
import { Call, shownKey, type CallParent } from './call.js'
import type { CallCancel } from './call-cancel.js'
import { CallContext, type NestedInvoke } from './call-context.js'
import { Deadlines } from './deadlines.js'
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

/** The one invoke pipeline: it runs `STAGES` over each call, tracks calls in flight, and never throws. */
export class Pipeline {
  readonly #deps: StageDeps
  readonly #nextId = monotonicFactory(pooledRandom)
  readonly #inFlight = new Map<string, CallCancel>()
  #active = 0
  #idle: (() => void) | null = null
  #closing = false

  constructor(deps: PipelineDeps) {
    const nested: NestedInvoke = (key, input, options, parent) => this.#track(this.#invoke(key, input, options, parent))
    const stageDeps: StageDeps = {
      ...deps,
      closing: () => this.#closing || (deps.stopping?.() ?? false),
      inFlight: this.#inFlight,
      deadlines: new Deadlines(),
      context: (call) => new CallContext(call, stageDeps, nested),
    }
    this.#deps = stageDeps
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
}
