import type { LanguageModelUsage, ModelMessage, StepResult, ToolSet } from 'ai'
import type { Plane } from '../plane/index.js'
import type { Envelope } from '../skill/index.js'
import type { RunRepository, RunStepListed, RunStepRow, RunTotalsChange } from '../store/index.js'
import type { ConnectLink } from '../access/index.js'
import { RunRedactor } from './run-redactor.js'
import type { ModelCallEvents, ModelCallObserver } from './observe-model.js'
import { rebuildRequest, requestDelta, toModelRequest, type ModelRequest, type RequestDelta } from './model-request.js'
import { modelCost, type ModelPricing } from './model-cost.js'

// A sampled answer is kept in its step up to this many characters.
const SAMPLED_TEXT_CAP = 8_000

/** A model call under way: its row (stored running) and the times seen so far, in ms since the epoch. */
interface ModelCall {
  row: RunStepRow
  started: number
  firstChunk?: number
  ended?: number
  texts: Array<{ start: number; end?: number }>
}

/**
 * Stores a run's steps as they happen: each model call as it starts (running, with the request it
 * was sent) and once it finishes (timing, usage, cost), that step's text and tool calls, and the
 * outcome of a call stored before a pause as soon as it is known, timed by its audit row. Each
 * write is numbered run-wide (`rev`), so a follower reads what changed since the number it saw;
 * writes go one at a time, in that order.
 */
export class StepRecorder {
  readonly #byCall = new Map<string, RunStepListed>()
  // Outcomes that arrive before the step holding their call is stored.
  readonly #outcomes = new Map<string, Envelope>()
  // Stored inputs are redacted: outputs are redacted again from the raw arguments the conversation holds.
  readonly #rawInputs = new Map<string, unknown>()
  readonly #redactor: RunRedactor
  // Each tool step's times, from the audit row of its call, by step index.
  readonly #timed = new Map<number, { callId: string; times: Pick<RunStepRow, 'started_at' | 'finished_at' | 'duration_ms'> }>()
  #next: number
  #rev: number
  #writes: Promise<void> = Promise.resolve()
  #failure: { error: unknown } | undefined
  #model: ModelCall | undefined
  #modelSteps: number
  // The run's previous model request as stored (redacted), loaded when the run resumes; null: none yet.
  #lastRequest: ModelRequest | null | undefined

  constructor(
    private readonly plane: Plane,
    private readonly repo: RunRepository,
    private readonly runId: string,
    existing: readonly RunStepListed[],
    messages: readonly ModelMessage[],
    private readonly events: { written(): void; failed(error: unknown): void },
    private readonly model: { pricing?: ModelPricing; steps: number } = { steps: 0 },
  ) {
    this.#redactor = new RunRedactor(plane.skills)
    for (const row of existing) {
      // A sampling or input step names the tool call it came from: the call's own step is the tool step.
      if (row.tool_call_id && row.kind === 'tool') this.#byCall.set(row.tool_call_id, row)
      if (row.call_id && row.started_at) {
        this.#timed.set(row.idx, { callId: row.call_id, times: { started_at: row.started_at, finished_at: row.finished_at, duration_ms: row.duration_ms } })
      }
    }
    this.#next = existing.length
    this.#rev = existing.reduce((max, row) => Math.max(max, row.rev), 0)
    this.#modelSteps = model.steps
    this.#lastRequest = existing.some((row) => row.kind === 'model') ? undefined : null
    for (const message of messages) {
      if (message.role !== 'assistant' || typeof message.content === 'string') continue
      for (const part of message.content) {
        if (part.type !== 'tool-call') continue
        this.#rawInputs.set(part.toolCallId, part.input)
        this.#redactor.learn(part.toolName, part.input)
      }
    }
  }

  /** Watches the run's model calls (observeModel): each is stored running as it starts. */
  readonly observe: ModelCallObserver = (call) => {
    const started = Date.parse(this.plane.now())
    const request = toModelRequest({ prompt: this.#redactor.prompt(call.prompt), tools: call.tools })
    const row: RunStepRow = {
      ...this.#blank('model'),
      status: 'running',
      started_at: new Date(started).toISOString(),
      // A failed call and its retry are the same model step.
      step_number: this.#modelSteps + 1,
      model_provider: call.provider,
      model_id: call.modelId,
    }
    const current: ModelCall = { row, started, texts: [] }
    this.#model = current
    void this.#write([row], [], {
      // The delta is taken in write order, after the run's earlier requests are stored (or read back).
      prepare: async ([inserted]) => {
        if (this.#lastRequest === undefined) {
          const stored = await this.repo.requests(this.runId)
          this.#lastRequest = rebuildRequest(stored.map((text) => JSON.parse(text) as RequestDelta)) ?? null
        }
        inserted!.request = JSON.stringify(requestDelta(this.#lastRequest ?? undefined, request))
        this.#lastRequest = request
      },
    })
    const at = () => Date.parse(this.plane.now())
    const events: ModelCallEvents = {
      firstChunk: () => void (current.firstChunk ??= at()),
      text: (edge) => {
        if (edge === 'start') current.texts.push({ start: at() })
        else {
          const open = current.texts.findLast((t) => t.end === undefined)
          if (open) open.end = at()
        }
      },
      ended: () => void (current.ended ??= at()),
      failed: (error) => {
        if (this.#model !== current) return
        this.#model = undefined
        this.#close(current, 'error', at(), this.#redactor.text(`model call failed: ${errorText(error)}`))
        void this.#write([], [row])
      },
    }
    return events
  }

  /** A model call still running when the run stops (failed or shut down): stored as failed with why. */
  settle(error: unknown): void {
    const current = this.#model
    if (!current) return
    this.#model = undefined
    this.#close(current, 'error', Date.parse(this.plane.now()), this.#redactor.text(errorText(error)))
    void this.#write([], [current.row])
  }

  /**
   * Store a finished model step: what the model said, its tool calls with their outcomes, the
   * approvals it asks for and the accounts the person must connect first (`connects`, by call).
   */
  step(step: StepResult<ToolSet>, asked: ReadonlyMap<string, string>, connects: ReadonlyMap<string, { message: string }> = new Map()): Promise<void> {
    const added: RunStepRow[] = []
    const changed = new Set<RunStepListed>()
    const touch = (toolCallId: string, changes: Partial<RunStepRow>) => {
      const row = this.#byCall.get(toolCallId)
      if (!row) return
      Object.assign(row, changes)
      if (!added.includes(row as RunStepRow)) changed.add(row)
    }
    const call = this.#model
    this.#model = undefined
    let totals: RunTotalsChange | undefined
    if (call) {
      this.#modelSteps++
      this.#close(call, 'ok', call.ended ?? Date.parse(this.plane.now()))
      const { usage } = step
      const cost = modelCost(this.model.pricing, usage)
      Object.assign(call.row, {
        model_provider: step.model.provider,
        model_id: step.model.modelId,
        input_tokens: usage.inputTokens ?? null,
        output_tokens: usage.outputTokens ?? null,
        cached_input_tokens: usage.inputTokenDetails?.cacheReadTokens ?? null,
        cache_write_tokens: usage.inputTokenDetails?.cacheWriteTokens ?? null,
        reasoning_tokens: usage.outputTokenDetails?.reasoningTokens ?? null,
        cost_usd: cost,
        finish_reason: step.finishReason,
      } satisfies Partial<RunStepRow>)
      changed.add(call.row)
      totals = {
        model_steps: 1,
        input_tokens: usage.inputTokens ?? 0,
        output_tokens: usage.outputTokens ?? 0,
        cached_input_tokens: usage.inputTokenDetails?.cacheReadTokens ?? 0,
        cost_usd: cost,
        model_ms: call.row.duration_ms ?? 0,
      }
    }
    // The step's tool calls teach the redactor their secrets first: its text may repeat one.
    for (const part of step.content) if (part.type === 'tool-call') this.#redactor.learn(part.toolName, part.input)
    let texts = 0
    for (const part of step.content) {
      if (part.type === 'text') {
        // Its time is that of its part of the stream; the model call's when the stream had none.
        const streamed = call?.texts[texts++]
        const start = streamed?.start ?? call?.firstChunk ?? call?.started
        const end = streamed?.end ?? call?.ended
        if (part.text.trim()) {
          added.push({
            ...this.#blank('text'),
            text: part.text,
            started_at: start === undefined ? null : new Date(start).toISOString(),
            finished_at: end === undefined ? null : new Date(end).toISOString(),
            duration_ms: start === undefined || end === undefined ? null : end - start,
          })
        }
      }
      if (part.type === 'tool-call' && !this.#byCall.has(part.toolCallId)) {
        const row = {
          ...this.#blank('tool'),
          tool_name: part.toolName,
          tool_call_id: part.toolCallId,
          input: JSON.stringify(part.input ?? null),
          status: 'called',
        }
        this.#rawInputs.set(part.toolCallId, part.input)
        this.#byCall.set(part.toolCallId, row)
        added.push(row)
      }
      if (part.type === 'tool-approval-request') {
        const connect = connects.get(part.toolCall.toolCallId)
        touch(
          part.toolCall.toolCallId,
          connect
            ? { status: 'needs_auth', error: `needs_auth: ${connect.message}` }
            : { status: 'awaiting_approval', approval_id: asked.get(part.toolCall.toolCallId) ?? null },
        )
      }
      if (part.type === 'tool-error') touch(part.toolCallId, { status: 'error', error: errorText(part.error) })
      if (part.type === 'tool-result') touch(part.toolCallId, { status: 'ok', output: JSON.stringify(part.output ?? null) })
    }
    // What the pipeline said about each call decides: its audit row, and denials the AI SDK reported as output.
    for (const row of [...added, ...changed]) {
      const envelope = row.tool_call_id === null ? undefined : this.#outcomes.get(row.tool_call_id)
      if (!envelope) continue
      this.#outcomes.delete(row.tool_call_id!)
      applyOutcome(row, envelope)
    }
    return this.#write(added, [...changed], { totals })
  }

  /** The pipeline's answer to a tool call: stored with its step, or at once for a call stored before a pause. */
  called(toolCallId: string, envelope: Envelope): void {
    const row = this.#byCall.get(toolCallId)
    if (!row) {
      this.#outcomes.set(toolCallId, envelope)
      return
    }
    applyOutcome(row, envelope)
    void this.#write([], [row])
  }

  /** A call of a paused run as it waits now: for a connection (the link stays in its error), or for an approval. */
  waits(toolCallId: string, on: { connect: ConnectLink } | { approvalId: string | null }): void {
    const row = this.#byCall.get(toolCallId)
    if (!row) return
    if ('connect' in on) {
      if (row.status === 'needs_auth') return
      Object.assign(row, { status: 'needs_auth', error: `needs_auth: connect ${on.connect.provider} at ${on.connect.url}` })
    } else if (on.approvalId) Object.assign(row, { status: 'awaiting_approval', approval_id: on.approvalId, error: null })
    else Object.assign(row, { status: 'called', error: null })
    void this.#write([], [row])
  }

  /** A call a human rejected (or whose request expired): the model is told it was denied. */
  denied(toolCallId: string, reason: string): void {
    const row = this.#byCall.get(toolCallId)
    if (!row) return
    Object.assign(row, { status: 'denied', output: null, error: `denied: ${reason}` })
    void this.#write([], [row])
  }

  /**
   * A model completion a tool call asked the run for (an imported MCP server's sampling), answered
   * with the run's model: a step of its own, with its usage and cost added to the run's totals
   * (not to its model steps: maxSteps bounds the agent's own loop).
   */
  sampled(
    call: { toolCallId: string; tool: string },
    done: {
      request: unknown
      provider: string
      modelId: string
      usage: LanguageModelUsage
      finishReason: string
      text: string | null
      error?: string
      started: number
      ended: number
    },
  ): Promise<void> {
    const cost = modelCost(this.model.pricing, done.usage)
    const durationMs = Math.max(0, done.ended - done.started)
    const row: RunStepRow = {
      ...this.#blank('sampling'),
      tool_name: call.tool,
      tool_call_id: call.toolCallId,
      input: JSON.stringify(done.request),
      text: done.text === null ? null : done.text.slice(0, SAMPLED_TEXT_CAP),
      error: done.error ?? null,
      status: done.error === undefined ? 'ok' : 'error',
      started_at: new Date(done.started).toISOString(),
      finished_at: new Date(done.ended).toISOString(),
      duration_ms: durationMs,
      model_provider: done.provider,
      model_id: done.modelId,
      input_tokens: done.usage.inputTokens ?? null,
      output_tokens: done.usage.outputTokens ?? null,
      cached_input_tokens: done.usage.inputTokenDetails?.cacheReadTokens ?? null,
      cache_write_tokens: done.usage.inputTokenDetails?.cacheWriteTokens ?? null,
      reasoning_tokens: done.usage.outputTokenDetails?.reasoningTokens ?? null,
      cost_usd: cost,
      finish_reason: done.finishReason,
    }
    return this.#write([row], [], {
      totals: {
        input_tokens: done.usage.inputTokens ?? 0,
        output_tokens: done.usage.outputTokens ?? 0,
        cached_input_tokens: done.usage.inputTokenDetails?.cacheReadTokens ?? 0,
        cost_usd: cost,
        model_ms: durationMs,
      },
    })
  }

  /** A person's input a tool call waits for (an MCP elicitation): a step, awaiting_input until answered. Returns it. */
  async asking(call: { toolCallId: string; tool: string }, request: unknown): Promise<RunStepRow> {
    const row: RunStepRow = {
      ...this.#blank('input'),
      tool_name: call.tool,
      tool_call_id: call.toolCallId,
      input: JSON.stringify(request),
      status: 'awaiting_input',
      started_at: this.plane.now(),
    }
    await this.#write([row], [])
    return row
  }

  /** The input step's answer (or why there is none), and the time the run waited for it. */
  answered(row: RunStepRow, status: string, output: unknown, error?: string): Promise<void> {
    const ended = this.plane.now()
    const waited = Math.max(0, Date.parse(ended) - Date.parse(row.started_at ?? ended))
    Object.assign(row, { status, output: output === undefined ? null : JSON.stringify(output), error: error ?? null, finished_at: ended, duration_ms: waited })
    return this.#write([], [row], { totals: { approval_wait_ms: waited } })
  }

  /** Waits for every write; throws the first that failed. */
  async flush(): Promise<void> {
    await this.#writes
    if (this.#failure) throw this.#failure.error
  }

  #blank(kind: string): RunStepRow {
    return {
      run_id: this.runId,
      idx: this.#next++,
      kind,
      text: null,
      tool_name: null,
      tool_call_id: null,
      input: null,
      output: null,
      error: null,
      status: null,
      call_id: null,
      approval_id: null,
      created_at: this.plane.now(),
      rev: 0,
      started_at: null,
      finished_at: null,
      duration_ms: null,
      step_number: null,
      model_provider: null,
      model_id: null,
      input_tokens: null,
      output_tokens: null,
      cached_input_tokens: null,
      cache_write_tokens: null,
      reasoning_tokens: null,
      cost_usd: null,
      finish_reason: null,
      first_chunk_ms: null,
      request: null,
    }
  }

  /** A model call's end: its row's status, times and (on failure) why. */
  #close(call: ModelCall, status: 'ok' | 'error', end: number, error?: string): void {
    Object.assign(call.row, {
      status,
      finished_at: new Date(end).toISOString(),
      duration_ms: Math.max(0, end - call.started),
      first_chunk_ms: call.firstChunk === undefined ? null : Math.max(0, call.firstChunk - call.started),
      ...(error !== undefined && { error }),
    })
  }

  #write(
    added: RunStepRow[],
    changed: RunStepListed[],
    also: { prepare?: (inserts: RunStepRow[]) => Promise<void>; totals?: RunTotalsChange } = {},
  ): Promise<void> {
    // Numbered and copied now: the order of the calls is the order of the writes.
    const snapshot = <T extends RunStepListed>(row: T): T => {
      this.#redact(row)
      row.rev = ++this.#rev
      return { ...row }
    }
    // Changes first: a model step is told finished before the text and calls it made.
    const updates = changed.map(snapshot)
    const inserts = added.map(snapshot)
    this.#writes = this.#writes.then(async () => {
      if (this.#failure) return
      try {
        await also.prepare?.(inserts)
        const toolMs = await this.#timeCalls([...inserts, ...updates])
        await this.repo.addSteps(inserts)
        // The request was stored with the row: it is never rewritten.
        for (const { request: _request, ...row } of updates as RunStepRow[]) await this.repo.updateStep(this.runId, row.idx, row)
        const totals = { ...also.totals, tool_ms: toolMs }
        await this.repo.addTotals(this.runId, totals)
        this.events.written()
      } catch (error) {
        this.#failure = { error }
        this.events.failed(error)
      }
    })
    return this.#writes
  }

  /**
   * A tool step's times are those of its call's audit row (stored before the pipeline answered):
   * set on the rows about to be written whose call is new to them; returns the time added.
   */
  async #timeCalls(rows: RunStepListed[]): Promise<number> {
    let added = 0
    for (const row of rows) {
      if (row.kind !== 'tool' || row.call_id === null) continue
      let timed = this.#timed.get(row.idx)
      if (timed?.callId !== row.call_id) {
        const call = await this.plane.audit.get(row.call_id)
        if (!call) continue
        added += (call.durationMs ?? 0) - (timed?.times.duration_ms ?? 0)
        timed = { callId: row.call_id, times: { started_at: call.startedAt, finished_at: call.finishedAt, duration_ms: call.durationMs } }
        this.#timed.set(row.idx, timed)
      }
      // Copies taken before the times were known get them too.
      Object.assign(row, timed.times)
    }
    return added
  }

  /** Steps are served over HTTP: secrets are redacted as in the audit log. */
  #redact(row: RunStepListed): void {
    const raw = row.tool_call_id !== null && this.#rawInputs.has(row.tool_call_id) ? this.#rawInputs.get(row.tool_call_id) : undefined
    this.#redactor.step(row, raw)
  }
}

function applyOutcome(row: RunStepListed, envelope: Envelope): void {
  row.call_id = envelope.callId
  if (envelope.ok) Object.assign(row, { status: 'ok', output: JSON.stringify(envelope.data ?? null), error: null })
  else Object.assign(row, { status: 'error', error: `${envelope.error.code}: ${envelope.error.message}` })
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : typeof error === 'string' ? error : JSON.stringify(error)
}
