import type { ModelMessage, StepResult, ToolSet } from 'ai'
import type { Plane } from '../plane/index.js'
import type { Envelope } from '../skill/index.js'
import type { RunRepository, RunStepListed, RunStepRow } from '../store/index.js'
import { redact, scrubText } from '../audit/index.js'
import type { ConnectLink } from '../access/index.js'

/**
 * Stores a run's steps as they happen: a model step's text and tool calls once that step finishes,
 * and the outcome of a call stored before a pause as soon as it is known. Each write is numbered
 * run-wide (`rev`), so a follower reads what changed since the number it saw; writes go one at a
 * time, in that order.
 */
export class StepRecorder {
  readonly #byCall = new Map<string, RunStepListed>()
  // Outcomes that arrive before the step holding their call is stored.
  readonly #outcomes = new Map<string, Envelope>()
  // Stored inputs are redacted: outputs are redacted again from the raw arguments the conversation holds.
  readonly #rawInputs = new Map<string, unknown>()
  #next: number
  #rev: number
  #writes: Promise<void> = Promise.resolve()
  #failure: { error: unknown } | undefined

  constructor(
    private readonly plane: Plane,
    private readonly repo: RunRepository,
    private readonly runId: string,
    existing: readonly RunStepListed[],
    messages: readonly ModelMessage[],
    private readonly events: { written(): void; failed(error: unknown): void },
  ) {
    for (const row of existing) if (row.tool_call_id) this.#byCall.set(row.tool_call_id, row)
    this.#next = existing.length
    this.#rev = existing.reduce((max, row) => Math.max(max, row.rev), 0)
    for (const message of messages) {
      if (message.role !== 'assistant' || typeof message.content === 'string') continue
      for (const part of message.content) if (part.type === 'tool-call') this.#rawInputs.set(part.toolCallId, part.input)
    }
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
    for (const part of step.content) {
      if (part.type === 'text' && part.text.trim()) added.push({ ...this.#blank('text'), text: part.text })
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
    return this.#write(added, [...changed])
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

  #write(added: RunStepRow[], changed: RunStepListed[]): Promise<void> {
    // Numbered and copied now: the order of the calls is the order of the writes.
    const snapshot = <T extends RunStepListed>(row: T): T => {
      this.#redact(row)
      row.rev = ++this.#rev
      return { ...row }
    }
    const inserts = added.map(snapshot)
    const updates = changed.map(snapshot)
    this.#writes = this.#writes.then(async () => {
      if (this.#failure) return
      try {
        await this.repo.addSteps(inserts)
        for (const row of updates) await this.repo.updateStep(this.runId, row.idx, row)
        this.events.written()
      } catch (error) {
        this.#failure = { error }
        this.events.failed(error)
      }
    })
    return this.#writes
  }

  /** Steps are served over HTTP: secrets are redacted as in the audit log. */
  #redact(row: RunStepListed): void {
    if (row.kind !== 'tool') return
    const skill = row.tool_name ? this.plane.skills.get(row.tool_name) : undefined
    const secrets = new Set<string>()
    const raw =
      row.tool_call_id !== null && this.#rawInputs.has(row.tool_call_id)
        ? this.#rawInputs.get(row.tool_call_id)
        : row.input !== null
          ? JSON.parse(row.input)
          : undefined
    if (raw !== undefined) row.input = JSON.stringify(redact(raw, skill?.input.jsonSchema, { collect: secrets }) ?? null)
    if (row.output !== null) row.output = JSON.stringify(redact(JSON.parse(row.output), skill?.output?.jsonSchema, { scrub: secrets }))
    if (row.error !== null) row.error = scrubText(row.error, secrets)
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
