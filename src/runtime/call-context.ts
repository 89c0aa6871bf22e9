import { scrubText, type SubSpan } from '../audit/index.js'
import type { Caller, CallerClient, Envelope, LearningInput, NestedCallOptions, ProgressUpdate, SkillContext, SkillLogger } from '../skill/index.js'
import type { Call, CallParent } from './call.js'
import { callerClient } from './call-client.js'
import type { InvokeOptions } from './invoke-options.js'
import { scrubbedLogger } from './scrubbed-logger.js'
import type { StageDeps } from './stage.js'

/** How a call's `ctx.invoke` reaches the pipeline: a nested call, gated and audited like any other. */
export type NestedInvoke = (key: string, input: unknown, options: InvokeOptions, parent: CallParent) => Promise<Envelope>

const unserved = () => Promise.reject(new Error('shared memory and learnings are not available here'))
const UNSERVED: Pick<SkillContext, 'memory' | 'learn'> = {
  memory: { get: unserved, set: unserved, delete: unserved, list: unserved },
  learn: unserved,
}

/**
 * The `ctx` of a call's executor: what it may know of the call, and what it may do through it.
 * One object per call; what it hands out (its functions, bound so they work detached, the logger,
 * secrets, memory) is made on first use, since most calls use little of it.
 */
export class CallContext implements SkillContext {
  readonly callId: string
  readonly parentCallId: string | null
  readonly caller: Caller
  readonly agent: string | null
  readonly conversationId: string | null
  readonly onBehalfOf: Caller | null
  readonly edgeId: string | null
  readonly #call: Call
  readonly #deps: StageDeps
  readonly #nested: NestedInvoke
  #logger: SkillLogger | undefined
  #services: Pick<SkillContext, 'memory' | 'learn'> | undefined
  #secrets: SkillContext['secrets'] | undefined
  #settings: SkillContext['settings'] | undefined
  #bound: Partial<Pick<SkillContext, 'learn' | 'progress' | 'invoke'>> = {}
  #client: CallerClient | undefined

  constructor(call: Call, deps: StageDeps, nested: NestedInvoke) {
    this.callId = call.id
    this.parentCallId = call.parent?.callId ?? null
    this.caller = call.caller
    this.agent = call.agentId
    this.conversationId = call.conversationId
    this.onBehalfOf = call.options.onBehalfOf ?? null
    this.edgeId = call.edge?.id ?? null
    this.#call = call
    this.#deps = deps
    this.#nested = nested
  }

  /** Keep what happened inside the call that is no audit row of its own (a remote call), for its call tree. */
  note(span: SubSpan): void {
    this.#call.spans.push(span)
  }

  get secrets(): SkillContext['secrets'] {
    const call = this.#call
    return (this.#secrets ??= { get: declaredGet(call, 'secret'), conceal: (derived: string) => call.conceal(derived) })
  }

  get settings(): SkillContext['settings'] {
    return (this.#settings ??= { get: declaredGet(this.#call, 'setting') })
  }

  get signal(): AbortSignal {
    return this.#call.cancel!.signal
  }

  get logger(): SkillLogger {
    const call = this.#call
    return (this.#logger ??= scrubbedLogger(this.#deps.logger.child({ callId: this.callId }), () => call.scrub()))
  }

  get client(): CallerClient {
    const call = this.#call
    return (this.#client ??= callerClient(
      { skill: call.skill.key, scrub: () => call.scrub(), note: (span) => this.note(span), signal: call.cancel!.signal, deadline: () => call.deadlineAt },
      call.options.client,
    ))
  }

  get memory(): SkillContext['memory'] {
    return this.#served().memory
  }

  get learn(): SkillContext['learn'] {
    return (this.#bound.learn ??= (learning: LearningInput) => this.#served().learn(learning))
  }

  get progress(): SkillContext['progress'] {
    return (this.#bound.progress ??= (update: ProgressUpdate) => this.#progress(update))
  }

  get invoke(): SkillContext['invoke'] {
    return (this.#bound.invoke ??= (skill: string | { key: string }, input: unknown, nested?: NestedCallOptions) => this.#invoke(skill, input, nested))
  }

  /** Only while the call runs, and only numbers: a report can come from another process. */
  #progress(update: ProgressUpdate): void {
    const { options, injected } = this.#call
    const { logger, inFlight } = this.#deps
    if (!options.onProgress || !inFlight.has(this.callId) || !Number.isFinite(update?.progress)) return
    const total = Number.isFinite(update.total) ? update.total : undefined
    const text = typeof update.message === 'string' ? update.message.slice(0, 1000) : undefined
    const message = text !== undefined && injected.size > 0 ? scrubText(text, injected) : text
    try {
      options.onProgress({ progress: update.progress, ...(total !== undefined && { total }), ...(message !== undefined && { message }) })
    } catch (error) {
      logger.warn({ err: error, callId: this.callId }, 'a progress listener failed')
    }
  }

  // A definition stands for its key; the callee runs as registered, whatever object was passed.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the overloads type the result by the callee's output schema, which the pipeline checks
  #invoke(skill: string | { key: string }, input: unknown, nested?: NestedCallOptions): Promise<Envelope<any>> {
    const call = this.#call
    return this.#nested(
      typeof skill === 'string' ? skill : skill.key,
      input,
      {
        caller: this.caller,
        agent: this.agent,
        conversationId: this.conversationId,
        // An edge is named per call: a nested call runs on the manager unless it names one.
        edgeId: nested?.edgeId ?? null,
        signal: call.cancel!.signal,
        onBehalfOf: this.onBehalfOf,
        // The nested call's questions reach the same caller, noted on the nested call.
        client: call.options.client ?? null,
      },
      { callId: this.callId, depth: (call.parent?.depth ?? 0) + 1, scrub: call.injected },
    )
  }

  // Made on first use: most calls never touch memory or learnings.
  #served(): Pick<SkillContext, 'memory' | 'learn'> {
    const { callId, caller, agent: agentId } = this
    return (this.#services ??= this.#deps.callServices?.({ callId, skill: this.#call.skill.key, caller, agentId, scrub: this.#call.injected }) ?? UNSERVED)
  }
}

/** How a call reads its declared secrets or settings: once the call has passed the gate. */
function declaredGet(call: Call, kind: 'secret' | 'setting'): (name: string) => string {
  return (name) => {
    const { opened, skill } = call
    if (!opened) throw new Error(`skill "${skill.key}": ${kind}s are opened once the call has passed the gate (needsApproval can't read them)`)
    const value = (kind === 'secret' ? opened.secrets : opened.settings).get(name)
    if (value === undefined) throw new Error(`skill "${skill.key}" did not declare the ${kind} ${JSON.stringify(name)}: list it in its ${kind}s`)
    return value
  }
}

/** Note a sub-span on the call a `ctx` belongs to (an executor's remote call); a `ctx` made elsewhere (a test's) keeps none. */
export function noteSubSpan(ctx: SkillContext, span: SubSpan): void {
  if (ctx instanceof CallContext) ctx.note(span)
}
