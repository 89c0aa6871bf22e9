import type { LanguageModelUsage, ModelMessage } from 'ai'
import { createHash } from 'node:crypto'
import { TraceFlags, context, isSpanContextValid, trace } from '@opentelemetry/api'
import { ulid } from 'ulid'
import type { Plane } from '../plane/index.js'
import type { ResolvedAgent } from '../config/index.js'
import type { Caller, CallerRole } from '../skill/index.js'
import type { RunRepository, RunRow, RunStepListed } from '../store/index.js'
import { agentCaller, agentId as agentIdOf } from '../registry/index.js'
import { skillsPrompt } from '../sources/agent-skills/index.js'
import { toAISDKToolLoop, type AISDKToolOptions } from '../ai-sdk/index.js'
import type { ConnectLink } from '../access/index.js'
import { createModel } from './create-model.js'
import { RunError } from './run-error.js'
import { applyOverrides } from './apply-overrides.js'
import { TEST_RUN_KEY } from './test-run-key.js'
import type { RunStatus } from './run-status.js'
import { learningsPrompt, PROMPT_LEARNINGS } from './learnings-prompt.js'
import { StepRecorder } from './step-recorder.js'
import { RunTail } from './run-tail.js'
import { observeModel } from './observe-model.js'
import { pricingOf } from './model-cost.js'
import { rebuildRequest, type ModelRequest, type RequestDelta } from './model-request.js'
import { RunInputs, type RunInput, type RunInputAnswer } from './run-inputs.js'
import { runClient } from './run-client.js'
import { markedRequest } from './marked-request.js'

export type { RunStatus } from './run-status.js'

/** The tokens one model step reported, by kind (undefined: the provider did not say). */
export interface ModelUsage {
  agent: string
  model: string
  tokens: { input: number | undefined; output: number | undefined; cachedInput: number | undefined }
}

export interface RunStep {
  index: number
  /**
   * model: one call of the model; text: what it wrote; tool: one tool call; sampling: a model
   * completion a tool call asked for (an imported MCP server's sampling); input: a person's input a
   * tool call waits for (awaiting_input until answered).
   */
  kind: 'text' | 'tool' | 'model' | 'sampling' | 'input'
  text?: string
  tool?: string
  toolCallId?: string
  input?: unknown
  output?: unknown
  error?: string
  /** For a tool call: ok, error, awaiting_approval or denied. */
  status?: string
  /** The audit row of the call, when it reached the pipeline. */
  callId?: string
  approvalId?: string
  /** When it started and ended (a tool call: its audit row's times); null when not known. */
  startedAt: string | null
  finishedAt: string | null
  durationMs: number | null
  /** A model step: its number among the run's model steps, from 1, across pauses. */
  stepNumber?: number
  model?: { provider: string; modelId: string }
  /** A model step: the tokens as the provider reported them (null where it did not). */
  usage?: {
    inputTokens: number | null
    outputTokens: number | null
    cachedInputTokens: number | null
    cacheWriteTokens: number | null
    reasoningTokens: number | null
  }
  /** From the model's configured pricing; null without pricing or reported usage. */
  costUsd?: number | null
  finishReason?: string | null
  /** Time from the model call to its first streamed chunk. */
  firstChunkMs?: number | null
}

/** A run's totals, kept with it. */
export interface RunTotals {
  /** From start to end; null while it has not ended. */
  durationMs: number | null
  modelMs: number
  toolMs: number
  /** Time paused for a person (an approval, an account to connect), apart from the work. */
  approvalWaitMs: number
  inputTokens: number
  outputTokens: number
  cachedInputTokens: number
  /** The sum of the model steps that have a cost; null when none has. */
  costUsd: number | null
  modelSteps: number
}

export interface RunView {
  id: string
  agent: string
  requester: { id: string; name: string }
  status: RunStatus
  prompt: string
  output: string | null
  error: string | null
  traceId: string | null
  test: boolean
  overrides: Record<string, string> | null
  /**
   * While paused: the tool calls waiting, with skillplane's approval request for each (awaiting_approval)
   * or the account the person must connect first, and the link where they do (needs_auth).
   */
  pending: Array<{ toolCallId: string; tool: string; approvalId: string | null; provider: string | null; authorizationUrl: string | null }>
  createdAt: string
  updatedAt: string
  finishedAt: string | null
  totals: RunTotals
  steps?: RunStep[]
  /** What the run's tool calls asked a person for (MCP elicitations), pending or decided; with the steps. */
  inputs?: RunInput[]
}

/** What following a run yields: each step as it is stored (again when it changes), then the run as it ended. */
export type RunEvent = { type: 'step'; rev: number; step: RunStep } | { type: 'end'; run: RunView }

interface Pending {
  toolCallId: string
  tool: string
  /** The AI SDK's id for the approval request, answered with a tool-approval-response. */
  sdkApprovalId: string
  approvalId: string | null
  /** Waiting for the person to connect an account first (the run is needs_auth): where they do, and whose connection it is. */
  connect?: PendingConnect
  /** Waited for a connection that is made now, and needs no approval: it runs when the run resumes. */
  connected?: true
}

interface PendingConnect extends ConnectLink {
  /** The connection's person and scopes: a link shown later is made afresh (links expire). */
  subject: string
  scopes: string[]
}

/** The statuses of a run that waits, to resume once what it waits for is there. */
const WAITING = ['awaiting_approval', 'needs_auth'] as const

const tracer = trace.getTracer('skillplane')
/** What a model with a large catalog is told: most of its tools are found, not shown. */
const DISCOVERING =
  'You have more tools than are shown to you. When none of the tools you see fits, call discover_skills with the task in plain words: ' +
  'the tools it finds are yours to call from your next step on.'
const SWEEP_MS = 5_000
// Sweeps between two looks at every run waiting for a connection (about a minute).
const CONNECT_SWEEP_EVERY = 12

/**
 * Runs agents: a multi-step tool loop (AI SDK streamText) over the agent's bound skills, with the
 * instruction-skill catalog in its system prompt. A tool call that needs a human pauses the run
 * (awaiting_approval, stored); it resumes where it stopped once the approvals are decided, here or
 * on any manager sharing the database. Every step is stored as soon as it finishes, each tool call
 * linked to its audit row, and can be followed as it happens.
 */
export class AgentRunner {
  readonly #plane: Plane
  readonly #repo: RunRepository
  readonly #sweep: NodeJS.Timeout
  readonly #unsubscribe: () => void
  readonly #driving = new Set<Promise<unknown>>()
  readonly #tail: RunTail
  readonly #inputs: RunInputs
  // Shutting down cuts model calls short: those runs fail, stored, instead of holding the exit.
  readonly #stop = new AbortController()
  #closed = false
  readonly #ended = new Set<(run: { agent: string; status: 'completed' | 'failed'; test: boolean }) => void>()
  readonly #usage = new Set<(usage: ModelUsage) => void>()

  /**
   * `resume`: this process picks up runs whose approvals were decided. Only long-lived processes
   * (serve, an app) should: a one-shot command would exit in the middle of the run it resumed.
   * `records`: where runs are stored, the plane's store (the plane opens it; its facade does not offer it).
   */
  constructor(plane: Plane, options: { resume: boolean; records: RunRepository }) {
    this.#plane = plane
    this.#repo = options.records
    this.#tail = new RunTail(options.records)
    this.#inputs = new RunInputs(plane, options.records)
    const settled = options.resume ? plane.approvals.onSettled(() => void this.resumeDecided()) : () => {}
    // A person who connects resumes their runs: at once here, at the next refresh on other managers.
    const connected = options.resume ? plane.oauth.onConnected((provider) => void this.resumeConnected(provider)) : () => {}
    this.#unsubscribe = () => {
      settled()
      connected()
    }
    // Decisions made on other managers arrive through the database. Now and then every run waiting for a
    // connection is asked again too: one made while no manager listened (all of them down) is found that way.
    let sweeps = 0
    this.#sweep = setInterval(() => {
      void this.resumeDecided()
      if (sweeps++ % CONNECT_SWEEP_EVERY === 0) void this.#resumeAll('needs_auth', () => true)
    }, SWEEP_MS)
    this.#sweep.unref()
    if (!options.resume) clearInterval(this.#sweep)
  }

  /** The configured agent for an id, name or alias, with a test run's changes applied. */
  agent(label: string, overrides?: Record<string, string>): ResolvedAgent {
    // The config is the truth here (a fresh data dir has no catalog yet): an exact id first, then
    // the catalog's reading of names and aliases, then the config's own.
    const wanted = label.toLowerCase()
    const agents = this.#plane.config.agents
    const id = this.#plane.agents.resolve(label)
    const agent =
      agents.find((a) => agentIdOf(a.name) === wanted) ??
      agents.find((a) => id !== undefined && agentIdOf(a.name) === id) ??
      agents.find((a) => [a.name, ...a.aliases].some((l) => l.toLowerCase() === wanted))
    if (!agent) throw new RunError(`no agent "${label}" in the config`, 'not_found')
    return overrides ? applyOverrides(agent, overrides) : agent
  }

  /**
   * Start a run and drive it until it completes, fails or waits for approval. `wait: false` returns
   * the run as started (running) at once, while it goes on: follow it with `follow`.
   */
  async start(input: {
    agent: string
    prompt: string
    requester: Caller
    overrides?: Record<string, string>
    test?: boolean
    wait?: boolean
  }): Promise<RunView> {
    if (this.#closed) throw new RunError('skillplane is shutting down; retry on another manager', 'unavailable')
    if (typeof input.prompt !== 'string' || input.prompt.trim() === '') throw new RunError('the prompt is empty')
    const agent = this.agent(input.agent, input.overrides)
    // A missing key or model is an error now, not in the middle of the run.
    createModel(agent)
    const now = this.#plane.now()
    const row: RunRow = {
      id: ulid(),
      agent_id: agentIdOf(agent.name),
      requester_id: input.requester.id,
      requester_name: input.requester.name,
      requester_kind: input.requester.kind,
      requester_role: input.requester.kind === 'user' ? input.requester.role : null,
      status: 'running',
      prompt: input.prompt,
      output: null,
      error: null,
      trace_id: null,
      messages: JSON.stringify([{ role: 'user', content: input.prompt }] satisfies ModelMessage[]),
      pending: null,
      test: input.test ? 1 : 0,
      overrides: input.overrides ? JSON.stringify(input.overrides) : null,
      manager_id: this.#plane.status.managerId,
      model_steps: 0,
      created_at: now,
      updated_at: now,
      finished_at: null,
      input_tokens: 0,
      output_tokens: 0,
      cached_input_tokens: 0,
      cost_usd: null,
      model_ms: 0,
      tool_ms: 0,
      approval_wait_ms: 0,
      paused_at: null,
    }
    await this.#repo.insert(row)
    const started: RunView = { ...this.#view(row), steps: [] }
    const driving = this.#track(this.#drive(row, agent, []))
    if (input.wait === false) return started
    await driving
    return (await this.get(row.id))!
  }

  /**
   * A run's steps after write `after` (a step event's `rev`; 0 for all), each as soon as it is stored
   * here or on another manager, a step again when it changes (a call paused for approval, once
   * decided), then the run as it is once it no longer runs. Ends there, or when `signal` aborts.
   */
  async *follow(id: string, options: { after?: number; signal: AbortSignal }): AsyncGenerator<RunEvent> {
    const { signal } = options
    let seen = options.after ?? 0
    const watch = this.#tail.watch(id)
    try {
      while (!signal.aborted) {
        // The run before its steps: a run that ended had stored every step by then.
        const row = await this.#repo.get(id)
        if (!row) return
        for (const step of await this.#repo.stepsAfter(id, seen)) {
          seen = step.rev
          yield { type: 'step', rev: step.rev, step: toStep(step) }
        }
        if (row.status !== 'running') {
          yield { type: 'end', run: this.#view(row) }
          return
        }
        await watch.next(signal)
      }
    } finally {
      watch.close()
    }
  }

  async get(id: string): Promise<RunView | undefined> {
    const row = await this.#repo.get(id)
    return row && { ...this.#view(row), steps: (await this.#repo.steps(id)).map(toStep), inputs: await this.#inputs.list(runOf(row)) }
  }

  /**
   * A person's answer to what a run's tool call asks for (an MCP elicitation), on any manager: the
   * manager holding the call hears it and the call goes on. Throws a RunInputError naming why it is
   * refused: not theirs to answer, content that doesn't match the requested schema, or decided already
   * (answered, expired, or gone with the manager that held the call).
   */
  async answerInput(runId: string, inputId: string, caller: Caller, answer: RunInputAnswer): Promise<RunInput> {
    const row = await this.#repo.get(runId)
    if (!row) throw new RunError(`no run "${runId}"`, 'not_found')
    const input = await this.#inputs.answer(runOf(row), inputId, caller, answer)
    this.#tail.changed(runId)
    return input
  }

  /**
   * What the model was sent for step `index` of a run (redacted as stored), with the run's agent so
   * the caller can check who may see it; `step` undefined when the run has no such step, `request`
   * undefined when the step is not a model step.
   */
  async request(id: string, index: number): Promise<{ agent: string; step?: { kind: string; request?: ModelRequest } } | undefined> {
    const row = await this.#repo.get(id)
    if (!row) return undefined
    const kind = await this.#repo.stepKind(id, index)
    if (kind === undefined) return { agent: row.agent_id }
    if (kind !== 'model') return { agent: row.agent_id, step: { kind } }
    const deltas = (await this.#repo.requests(id, index)).map((text) => JSON.parse(text) as RequestDelta)
    return { agent: row.agent_id, step: { kind, request: rebuildRequest(deltas) ?? { system: null, tools: [], messages: [] } } }
  }

  async list(q: { agent?: string; status?: string; cursor?: string; limit: number }): Promise<{ items: RunView[]; nextCursor: string | null }> {
    const agentId = q.agent ? (this.#plane.agents.resolve(q.agent) ?? agentIdOf(q.agent)) : undefined
    const rows = await this.#repo.list({ agentId, status: q.status, cursor: q.cursor, limit: q.limit })
    const items = rows.slice(0, q.limit).map((row) => this.#view(row))
    return { items, nextCursor: rows.length > q.limit ? items[items.length - 1]!.id : null }
  }

  /** Resume the runs whose approvals have all been decided; returns how many resumed. */
  resumeDecided(): Promise<number> {
    return this.#resumeAll('awaiting_approval', () => true)
  }

  /**
   * Resume the runs waiting for a connection to `provider` that is there now; returns how many
   * resumed. Connections are heard as they are made here, and at the next refresh when made on
   * another manager (or before this one started).
   */
  resumeConnected(provider: string): Promise<number> {
    return this.#resumeAll('needs_auth', (pending) => pending.some((p) => p.connect?.provider === provider))
  }

  async #resumeAll(status: (typeof WAITING)[number], waitsFor: (pending: Pending[]) => boolean): Promise<number> {
    let resumed = 0
    let cursor: string | undefined
    // Every waiting run, page by page; one that fails to resume does not hold up the rest.
    while (!this.#closed) {
      let page: RunRow[]
      try {
        page = await this.#repo.list({ status, test: false, cursor, limit: 100 })
      } catch (error) {
        this.#plane.logger.warn({ err: error }, 'listing agent runs to resume failed')
        return resumed
      }
      for (const run of page.slice(0, 100)) {
        if (!waitsFor(JSON.parse(run.pending ?? '[]') as Pending[])) continue
        try {
          if (await this.resume(run.id)) resumed++
        } catch (error) {
          this.#plane.logger.warn({ err: error, run: run.id }, 'resuming an agent run failed')
        }
      }
      if (page.length <= 100) break
      cursor = page[99]!.id
    }
    return resumed
  }

  /**
   * Resume one run if every approval it waits for is decided and every account it waits for is
   * connected; false while one is not. A call that waited for a connection is asked about again
   * first: it may need an approval now (the run then waits for that), or still the connection.
   */
  async resume(id: string): Promise<boolean> {
    let row = await this.#repo.get(id)
    // A test run stops at its first pause: it reports unconfirmed and never runs the call later.
    if (!row || !isWaiting(row.status) || row.test === 1 || this.#closed) return false
    let pending = JSON.parse(row.pending ?? '[]') as Pending[]
    if (pending.some((p) => p.connect)) {
      const asked = await this.#askAgain(row, pending)
      if (!asked) return false
      ;({ row, pending } = asked)
    }
    const status = row.status as (typeof WAITING)[number]
    const requests = await Promise.all(pending.map((p) => (p.approvalId ? this.#plane.approvals.get(p.approvalId) : undefined)))
    if (requests.some((r) => r?.status === 'pending')) return false
    // One manager resumes it; the time it waited is counted apart from its work.
    const now = this.#plane.now()
    const waited = row.paused_at ? Math.max(0, Date.parse(now) - Date.parse(row.paused_at)) : 0
    if (
      !(await this.#repo.transition(id, status, 'running', {
        pending: null,
        manager_id: this.#plane.status.managerId,
        updated_at: now,
        paused_at: null,
        approval_wait_ms: row.approval_wait_ms + waited,
      }))
    ) {
      return false
    }
    if (this.#closed) {
      // Shutting down between the check and the claim: leave it for another manager.
      await this.#repo.transition(id, 'running', status, { pending: row.pending, paused_at: row.paused_at, approval_wait_ms: row.approval_wait_ms })
      return false
    }
    const outcome = (p: Pending, i: number) => (p.connected && p.approvalId === null ? 'approved' : (requests[i]?.status ?? 'missing'))
    const answers: ModelMessage = {
      role: 'tool',
      content: pending.map((p, i) => {
        const status = outcome(p, i)
        return {
          type: 'tool-approval-response' as const,
          approvalId: p.sdkApprovalId,
          approved: status === 'approved',
          ...(status !== 'approved' && { reason: denialReason(p, status) }),
        }
      }),
    }
    this.#tail.changed(id)
    const denied = pending.flatMap((p, i) => (outcome(p, i) === 'approved' ? [] : [{ toolCallId: p.toolCallId, reason: denialReason(p, outcome(p, i)) }]))
    let agent: ResolvedAgent
    try {
      agent = this.#agentOf(row)
    } catch (error) {
      await this.#fail(row, error)
      return true
    }
    await this.#track(this.#drive(row, agent, [answers], denied))
    return true
  }

  /**
   * The calls of a needs_auth run asked about again, as the model's next step would: connected and
   * free to run, connected but needing an approval (filed now), or still waiting for the connection.
   * What changed is stored; undefined while any still waits for a connection.
   */
  async #askAgain(row: RunRow, pending: Pending[]): Promise<{ row: RunRow; pending: Pending[] } | undefined> {
    let agent: ResolvedAgent
    try {
      agent = this.#agentOf(row)
    } catch {
      // An agent gone from the config: the run fails once it is resumed, not while it waits.
      return undefined
    }
    const approvals = new Map<string, string>()
    const connects = new Map<string, { link: ConnectLink; message: string }>()
    const { tools } = toAISDKToolLoop(this.#plane, {
      ...this.#toolOptions(row, agent),
      onApprovalRequest: (event) => approvals.set(event.toolCallId, event.approvalId),
      onConnectRequest: (event) => connects.set(event.toolCallId, event),
    })
    const messages = JSON.parse(row.messages) as ModelMessage[]
    const next: Pending[] = []
    for (const p of pending) {
      const needsApproval = tools[p.tool]?.needsApproval
      if (!p.connect || typeof needsApproval !== 'function') {
        // A tool gone from the run's tools since: the AI SDK's answer to the call says so.
        next.push(p.connect ? { ...p, connect: undefined, connected: true } : p)
        continue
      }
      const stops = await needsApproval(inputOf(messages, p.toolCallId), { toolCallId: p.toolCallId, messages })
      const approvalId = approvals.get(p.toolCallId)
      const connect = connects.get(p.toolCallId)
      if (!stops) next.push({ ...p, connect: undefined, connected: true })
      else if (approvalId) next.push({ ...p, connect: undefined, connected: true, approvalId })
      // Still waiting: the link it showed stays (a new one each time would rewrite the run for nothing).
      else if (connect) next.push(p)
      else next.push({ ...p, connect: undefined, connected: true })
    }
    const waiting = next.some((p) => p.connect)
    const unchanged = JSON.stringify(next) === JSON.stringify(pending)
    if (waiting && unchanged) return undefined
    const status = waiting ? 'needs_auth' : 'awaiting_approval'
    const stored = JSON.stringify(next)
    if (!(await this.#repo.transition(row.id, row.status, status, { pending: stored, updated_at: this.#plane.now() }))) return undefined
    await this.#recordWaits(
      row,
      messages,
      next.filter((p, i) => JSON.stringify(p) !== JSON.stringify(pending[i])),
    )
    this.#tail.changed(row.id)
    return waiting ? undefined : { row: { ...row, status, pending: stored }, pending: next }
  }

  /** The steps of calls a paused run waits for, as they wait now. */
  async #recordWaits(row: RunRow, messages: ModelMessage[], pending: Pending[]): Promise<void> {
    const record = new StepRecorder(this.#plane, this.#repo, row.id, await this.#repo.steps(row.id), messages, {
      written: () => this.#tail.changed(row.id),
      failed: () => {},
    })
    for (const p of pending) record.waits(p.toolCallId, p.connect ? { connect: p.connect } : { approvalId: p.approvalId })
    await record.flush().catch((error: unknown) => this.#plane.logger.warn({ err: error, run: row.id }, 'storing the steps of a paused run failed'))
  }

  /** What a call waiting for a connection stores: the link, and whose connection with which scopes (as the pipeline asked). */
  #pendingConnect(row: RunRow, asked: { key: string; link: ConnectLink } | undefined): PendingConnect | undefined {
    if (!asked) return undefined
    // Only a person's connection has a link in a refusal (the service account's are for admins): the run's person.
    return { ...asked.link, subject: row.requester_name, scopes: [...(this.#plane.skills.get(asked.key)?.oauth?.scopes ?? [])] }
  }

  /** The run's agent as configured now, with a test run's changes. */
  #agentOf(row: RunRow): ResolvedAgent {
    return this.agent(row.agent_id, row.overrides ? (JSON.parse(row.overrides) as Record<string, string>) : undefined)
  }

  /** Who the run's tool calls are made as, and for whom. */
  #toolOptions(row: RunRow, agent: ResolvedAgent): AISDKToolOptions {
    const id = agentIdOf(agent.name)
    return {
      caller: agentCaller(id, agent.name),
      // Test runs are marked so that a test run can't start another one.
      conversationId: `${row.test ? 'test-run' : 'run'}:${row.id}`,
      // The person who started the run: the agent does no more than they may, and they can't approve its calls.
      ...(row.requester_kind === 'user' && {
        onBehalfOf: { kind: 'user', id: row.requester_id, name: row.requester_name, role: row.requester_role as CallerRole },
      }),
    }
  }

  async close(): Promise<void> {
    this.#closed = true
    clearInterval(this.#sweep)
    this.#unsubscribe()
    this.#stop.abort(new Error('skillplane shut down during the run'))
    // The calls waiting for a person end with this manager: an answer given elsewhere is told so.
    await this.#inputs.goneHere().catch((error: unknown) => this.#plane.logger.warn({ err: error }, 'marking the input requests of this manager gone failed'))
    await Promise.allSettled([...this.#driving])
  }

  #track<T>(promise: Promise<T>): Promise<T> {
    this.#driving.add(promise)
    return promise.finally(() => this.#driving.delete(promise))
  }

  async #drive(row: RunRow, agent: ResolvedAgent, more: ModelMessage[], denied: Array<{ toolCallId: string; reason: string }> = []): Promise<void> {
    const plane = this.#plane
    const id = agentIdOf(agent.name)
    const caller = agentCaller(id, agent.name)
    const asked = new Map<string, string>()
    const connects = new Map<string, { key: string; link: ConnectLink; message: string }>()
    const conversationId = `${row.test ? 'test-run' : 'run'}:${row.id}`
    // A step that can't be stored stops the model: the run fails rather than go on unrecorded.
    const halt = new AbortController()
    let recorder: StepRecorder | undefined
    // Everything after the run is marked running is inside the try: a run never stays running on an error.
    try {
      const messages = [...(JSON.parse(row.messages) as ModelMessage[]), ...more]
      const record = new StepRecorder(
        plane,
        this.#repo,
        row.id,
        await this.#repo.steps(row.id),
        messages,
        { written: () => this.#tail.changed(row.id), failed: (error) => halt.abort(error) },
        { pricing: pricingOf(agent), steps: row.model_steps },
      )
      recorder = record
      for (const d of denied) record.denied(d.toolCallId, d.reason)
      // Past discovery.toolThreshold skills, the model starts with a core set and finds the rest.
      const { tools, activeTools, prepareStep, experimental_repairToolCall } = toAISDKToolLoop(plane, {
        ...this.#toolOptions(row, agent),
        onCall: (event) => record.called(event.toolCallId, event.envelope),
        onApprovalRequest: (event) => asked.set(event.toolCallId, event.approvalId),
        // A call that needs the person to connect an account pauses the run like an approval, until they have.
        onConnectRequest: (event) => connects.set(event.toolCallId, event),
        // The run is its tool calls' caller: it samples with the agent's model, and a person answers what they ask.
        client: (call) =>
          runClient({
            plane,
            run: row,
            agent,
            call: { toolCallId: call.toolCallId, tool: call.toolName },
            record,
            inputs: this.#inputs,
            used: (step) => this.#used(row, step),
          }),
      })
      if (row.test) delete tools[TEST_RUN_KEY]
      const learned = learningsPrompt(await plane.values.learnings.top(id, PROMPT_LEARNINGS))
      // A test run's success says nothing about its learnings: only real runs reinforce them.
      if (!row.test) await plane.values.learnings.used(conversationId, learned.included)
      // maxSteps bounds the whole run, pauses included.
      const left = agent.maxSteps - row.model_steps
      if (left <= 0) throw new RunError(`the run used all ${agent.maxSteps} model steps (maxSteps)`)
      // A resumed run continues its trace, so the trace id lists every call of the run.
      const parent = row.trace_id
        ? trace.setSpanContext(context.active(), { traceId: row.trace_id, spanId: runSpanId(row.id), traceFlags: TraceFlags.SAMPLED, isRemote: true })
        : context.active()
      // Loaded here, not at the top: store-only commands never start a run and shouldn't pay for the AI SDK.
      const { stepCountIs, streamText, wrapLanguageModel } = await import('ai')
      const result = await tracer.startActiveSpan(
        `agent run ${agent.name}`,
        { attributes: { 'skillplane.run_id': row.id, 'skillplane.agent': id } },
        parent,
        async (span) => {
          const spanContext = span.spanContext()
          if (!row.trace_id && isSpanContextValid(spanContext)) {
            row.trace_id = spanContext.traceId
            await this.#repo.update(row.id, { trace_id: row.trace_id })
          }
          try {
            const abortSignal = AbortSignal.any([this.#stop.signal, halt.signal])
            const stream = streamText({
              // Each model call is stored as it starts (what it was sent) and timed.
              model: wrapLanguageModel({ model: createModel(agent), middleware: observeModel(record.observe) }),
              system: this.#systemPrompt(agent, caller, prepareStep !== undefined, learned.text),
              messages,
              tools,
              activeTools,
              prepareStep,
              experimental_repairToolCall,
              stopWhen: stepCountIs(left),
              abortSignal,
              // Each step is stored before the next one starts.
              onStepFinish: (step) => {
                this.#used(row, step)
                return record.step(step, asked, connects)
              },
              // Errors come through the stream below and fail the run.
              onError: () => {},
            })
            let failure: { error: unknown } | undefined
            for await (const part of stream.fullStream) if (part.type === 'error') failure ??= { error: part.error }
            await record.flush()
            if (failure) throw failure.error
            if (abortSignal.aborted) throw abortSignal.reason
            const [steps, response, text, content] = await Promise.all([stream.steps, stream.response, stream.text, stream.content])
            return { steps, response, text, content }
          } finally {
            span.end()
          }
        },
      )
      const all = [...messages, ...result.response.messages]
      const requests = result.content.filter((part) => part.type === 'tool-approval-request')
      const now = plane.now()
      if (requests.length > 0) {
        const pending: Pending[] = requests.map((part) => {
          const connect = this.#pendingConnect(row, connects.get(part.toolCall.toolCallId))
          return {
            toolCallId: part.toolCall.toolCallId,
            tool: part.toolCall.toolName,
            sdkApprovalId: part.approvalId,
            approvalId: asked.get(part.toolCall.toolCallId) ?? null,
            ...(connect && { connect }),
          }
        })
        const status = pending.some((p) => p.connect) ? 'needs_auth' : 'awaiting_approval'
        // A test run never resumes: it doesn't wait.
        await this.#repo.update(row.id, {
          status,
          messages: JSON.stringify(all),
          pending: JSON.stringify(pending),
          updated_at: now,
          paused_at: row.test ? null : now,
        })
        this.#tail.changed(row.id)
        // A test run never resumes, so its requests would only wait in inboxes until they expire.
        if (row.test) {
          for (const p of pending) if (p.approvalId) await plane.approvals.withdraw(p.approvalId, `test run ${row.id} ended at this approval`)
          return
        }
        // Decided (or connected) while we were storing it: go on at once.
        void this.resume(row.id)
        return
      }
      await this.#repo.update(row.id, { status: 'completed', output: result.text, messages: JSON.stringify(all), updated_at: now, finished_at: now })
      this.#tail.changed(row.id)
      this.#end(row, 'completed')
      if (!row.test) {
        // The run is done either way: a failed reinforcement is logged, never the run's failure.
        await plane.values.learnings
          .reinforce(conversationId)
          .catch((error) => plane.logger.warn({ err: error, runId: row.id }, 'reinforcing the learnings a successful run used failed'))
      }
    } catch (error) {
      // The steps stored so far, before the run is seen to end.
      recorder?.settle(error)
      await recorder?.flush().catch(() => {})
      await this.#fail(row, error)
    }
  }

  /** Call `listener` as each run this process drives ends, completed or failed (for metrics). Returns the unsubscribe function. */
  onRunEnded(listener: (run: { agent: string; status: 'completed' | 'failed'; test: boolean }) => void): () => void {
    this.#ended.add(listener)
    return () => this.#ended.delete(listener)
  }

  /** Call `listener` with the tokens each model step of a run reported (for metrics). Returns the unsubscribe function. */
  onModelUsage(listener: (usage: ModelUsage) => void): () => void {
    this.#usage.add(listener)
    return () => this.#usage.delete(listener)
  }

  #used(row: RunRow, step: { model: { modelId: string }; usage: LanguageModelUsage }): void {
    const { usage } = step
    const tokens = { input: usage.inputTokens, output: usage.outputTokens, cachedInput: usage.inputTokenDetails?.cacheReadTokens }
    for (const listener of this.#usage) listener({ agent: row.agent_id, model: step.model.modelId, tokens })
  }

  #end(row: RunRow, status: 'completed' | 'failed'): void {
    for (const listener of this.#ended) listener({ agent: row.agent_id, status, test: row.test === 1 })
  }

  /** A run as shown, with fresh connect links: one stored when the run paused may have expired since. */
  #view(row: RunRow): RunView {
    return toView(row, this.#plane.now(), (connect) => {
      try {
        // Back from the provider, the person lands on the run's console page, where it goes on.
        return this.#plane.oauth.authorizationUrl(connect.provider, connect.subject, connect.scopes, { returnTo: `/runs/${encodeURIComponent(row.id)}` })
      } catch {
        // A provider gone from the config: the link it had.
        return connect.url
      }
    })
  }

  async #fail(row: RunRow, error: unknown): Promise<void> {
    const now = this.#plane.now()
    const message = error instanceof Error ? error.message : String(error)
    await this.#repo.update(row.id, { status: 'failed', error: message.slice(0, 4000), updated_at: now, finished_at: now }).catch(() => {})
    this.#tail.changed(row.id)
    this.#end(row, 'failed')
    await this.#plane.values.learnings.forget(`${row.test ? 'test-run' : 'run'}:${row.id}`).catch(() => {})
  }

  #systemPrompt(agent: ResolvedAgent, caller: Caller, discovering: boolean, learned: string): string {
    const { skills: catalog } = this.#plane
    const { instructions } = catalog
    const id = agentIdOf(agent.name)
    const skills = instructions.visibleTo(caller, id, catalog).map((s) => ({ name: s.name, description: instructions.description(s, catalog) }))
    const base = agent.systemPrompt ?? `You are ${agent.name}.${agent.description ? ` ${agent.description}.` : ''} Use the tools you have to do what is asked.`
    const catalogText = skillsPrompt(skills)
    return [base, catalogText, learned, discovering && DISCOVERING].filter(Boolean).join('\n\n')
  }
}

/** A stable span id standing for a run's earlier part, as the parent of its resumed part. */
function runSpanId(runId: string): string {
  return createHash('sha256').update(runId).digest('hex').slice(0, 16)
}

function isWaiting(status: string): status is (typeof WAITING)[number] {
  return (WAITING as readonly string[]).includes(status)
}

/** A tool call's input as the model sent it, from the conversation. */
function inputOf(messages: ModelMessage[], toolCallId: string): unknown {
  for (const message of messages) {
    if (message.role !== 'assistant' || typeof message.content === 'string') continue
    for (const part of message.content) if (part.type === 'tool-call' && part.toolCallId === toolCallId) return part.input
  }
  return {}
}

function denialReason(p: Pending, status: string | undefined): string {
  return `skillplane approval request ${p.approvalId ?? '(none)'} is ${status ?? 'missing'}`
}

/** A run as shown; a connect link it waits on is `link(connect)`, made when shown. */
function toView(row: RunRow, now: string, link: (connect: PendingConnect) => string): RunView {
  const pending = row.pending ? (JSON.parse(row.pending) as Pending[]) : []
  return {
    id: row.id,
    agent: row.agent_id,
    requester: { id: row.requester_id, name: row.requester_name },
    status: row.status as RunStatus,
    prompt: row.prompt,
    output: row.output,
    error: row.error,
    traceId: row.trace_id,
    test: row.test === 1,
    overrides: row.overrides ? (JSON.parse(row.overrides) as Record<string, string>) : null,
    pending: pending.map((p) => ({
      toolCallId: p.toolCallId,
      tool: p.tool,
      approvalId: p.approvalId,
      provider: p.connect?.provider ?? null,
      authorizationUrl: p.connect ? link(p.connect) : null,
    })),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    finishedAt: row.finished_at,
    totals: toTotals(row, now),
  }
}

function toStep(row: RunStepListed): RunStep {
  const parse = (text: string | null) => (text === null ? undefined : (JSON.parse(text) as unknown))
  return {
    index: row.idx,
    kind: row.kind as RunStep['kind'],
    ...(row.text !== null && { text: row.text }),
    ...(row.tool_name !== null && { tool: row.tool_name }),
    ...(row.tool_call_id !== null && { toolCallId: row.tool_call_id }),
    ...(row.input !== null && { input: row.kind === 'input' ? markedRequest(parse(row.input)) : parse(row.input) }),
    ...(row.output !== null && { output: parse(row.output) }),
    ...(row.error !== null && { error: row.error }),
    ...(row.status !== null && { status: row.status }),
    ...(row.call_id !== null && { callId: row.call_id }),
    ...(row.approval_id !== null && { approvalId: row.approval_id }),
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    durationMs: row.duration_ms,
    ...((row.kind === 'model' || row.kind === 'sampling') && {
      ...(row.step_number !== null && { stepNumber: row.step_number }),
      ...(row.model_provider !== null && row.model_id !== null && { model: { provider: row.model_provider, modelId: row.model_id } }),
      usage: {
        inputTokens: row.input_tokens,
        outputTokens: row.output_tokens,
        cachedInputTokens: row.cached_input_tokens,
        cacheWriteTokens: row.cache_write_tokens,
        reasoningTokens: row.reasoning_tokens,
      },
      costUsd: row.cost_usd,
      finishReason: row.finish_reason,
      firstChunkMs: row.first_chunk_ms,
    }),
  }
}

/** A run's totals as stored, with the wait so far while it is paused. */
function toTotals(row: RunRow, now: string): RunTotals {
  const waiting = row.paused_at !== null && isWaiting(row.status) ? Math.max(0, Date.parse(now) - Date.parse(row.paused_at)) : 0
  return {
    durationMs: row.finished_at === null ? null : Math.max(0, Date.parse(row.finished_at) - Date.parse(row.created_at)),
    modelMs: row.model_ms,
    toolMs: row.tool_ms,
    approvalWaitMs: row.approval_wait_ms + waiting,
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    cachedInputTokens: row.cached_input_tokens,
    costUsd: row.cost_usd,
    modelSteps: row.model_steps,
  }
}

/** Who a run acts for, as answering its inputs needs. */
const runOf = (row: RunRow) => ({ id: row.id, requester: { id: row.requester_id, role: row.requester_role } })
