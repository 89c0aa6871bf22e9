import type { Logger } from 'pino'
import { context, trace } from '@opentelemetry/api'
import type { EdgeRepository, EdgeCallRow } from '../../store/index.js'
import { EdgeDeadlineExceeded, EdgeUnavailable, isSkillError, type EdgeCall } from '../../runtime/index.js'
import { edgeFailure, type EdgeCallOptions, type EdgeConnection } from './edge-connection.js'

/** A manager's signal to another: a call for it to run, a result or cancellation for a call, or edges changed. */
export interface RelaySignal {
  to: string | '*'
  kind: 'call' | 'result' | 'cancel' | 'edges'
  id?: string
}

export interface EdgeRelayOptions {
  repo: EdgeRepository
  managerId: string
  logger: Logger
  /** Tell other managers (PostgreSQL NOTIFY); absent on SQLite, where both sides poll instead. */
  signal?: (message: RelaySignal) => Promise<void>
  /** How often the holder looks for calls addressed to it without a signal. */
  pollMs: number
  /** How often a caller waiting for an answer looks without a signal (a prepared lookup by key: cheap). */
  waitPollMs: number
  /** Whether a manager is still alive (its heartbeat is fresh). */
  managerAlive(managerId: string): Promise<boolean>
  /** This manager's connection to an edge, for calls relayed to it. */
  connection(edgeId: string): EdgeConnection | undefined
  /** Seals a relayed call's secrets in the table (every manager holds the same key). */
  sealer?: Sealer
}

/** Symmetric encryption bound to a label (the secrets key). */
export interface Sealer {
  seal(value: string, boundTo: string): string
  open(sealed: string, boundTo: string): string | null
}

/** The holder's answer; `taken` and `answered` are when it took the call and had the edge's answer (for the call's tree). */
type Answer = ({ ok: true; data: unknown } | { ok: false; kind: 'skill' | 'edge' | 'error'; code?: string; message: string }) & {
  taken?: string
  answered?: string
}

const tracer = trace.getTracer('skillplane')
const isTime = (value: unknown): value is string => typeof value === 'string' && !Number.isNaN(Date.parse(value))

// How often a caller checks that the manager holding the edge is still alive.
const HOLDER_CHECK_MS = 2_000

/**
 * Calls for an edge another manager holds go through the shared database: the caller's manager
 * writes the request, the holder runs it over its tunnel and writes the answer back. Signals make
 * it prompt on PostgreSQL; polling is the fallback (and SQLite's way, between processes on one host).
 */
export class EdgeRelay {
  readonly #o: EdgeRelayOptions
  readonly #waiting = new Map<string, () => void>()
  readonly #running = new Map<string, AbortController>()
  #timer: NodeJS.Timeout | undefined
  #taking = false
  #takeAgain = false

  constructor(options: EdgeRelayOptions) {
    this.#o = options
  }

  /** Start taking the calls addressed to this manager (while it holds edges). */
  start(holdsEdges: () => boolean): void {
    // Without signals (SQLite) the holder polls; with them, a slow poll only catches a missed one.
    const every = this.#o.signal ? Math.max(this.#o.pollMs, 1_000) : this.#o.pollMs
    this.#timer = setInterval(() => {
      if (holdsEdges()) this.#take()
    }, every)
    this.#timer.unref()
  }

  /** A signal from another manager. */
  receive(message: RelaySignal): void {
    if (message.to !== this.#o.managerId && message.to !== '*') return
    if (message.kind === 'call') this.#take()
    else if (message.kind === 'result' && message.id) this.#waiting.get(message.id)?.()
    else if (message.kind === 'cancel' && message.id) this.#running.get(message.id)?.abort(new Error('the caller cancelled the call'))
  }

  /**
   * Run a call on an edge held by `holderId`, through the database. The call notes the relay (to
   * which manager, and when the holder took it and had the edge's answer), and traces it as an
   * `edge relay` span with an `edge <name>` span inside: the edge_calls row is gone after the answer.
   */
  async call(
    holderId: string,
    edgeId: string,
    edgeName: string,
    key: string,
    input: unknown,
    options: EdgeCallOptions & Pick<EdgeCall, 'note'>,
  ): Promise<unknown> {
    const from = new Date()
    const span = tracer.startSpan('edge relay', { startTime: from, attributes: { 'skillplane.manager': holderId, 'skillplane.edge': edgeName } })
    let answer: Answer | undefined
    try {
      answer = await this.#relay(holderId, edgeId, edgeName, key, input, options, from)
      return unwrap(answer, edgeName)
    } finally {
      const to = new Date()
      const taken = answer && isTime(answer.taken) ? answer.taken : null
      const answered = answer && isTime(answer.answered) ? answer.answered : null
      options.note({ kind: 'relay', holder: holderId, edge: edgeName, from: from.toISOString(), to: to.toISOString(), taken, answered })
      if (taken !== null) {
        const edgeSpan = tracer.startSpan(
          `edge ${edgeName}`,
          { startTime: Date.parse(taken), attributes: { 'skillplane.edge': edgeName } },
          trace.setSpan(context.active(), span),
        )
        edgeSpan.end(answered === null ? to : Date.parse(answered))
      }
      span.end(to)
    }
  }

  async #relay(holderId: string, edgeId: string, edgeName: string, key: string, input: unknown, options: EdgeCallOptions, from: Date): Promise<Answer> {
    const { repo, managerId } = this.#o
    const id = options.callId
    await repo.insertCall({
      id,
      edge_id: edgeId,
      holder_id: holderId,
      caller_manager_id: managerId,
      skill_key: key,
      input: JSON.stringify(input ?? null),
      secrets: this.#sealSecrets(id, options.secrets),
      timeout_ms: options.timeoutMs,
      state: 'pending',
      result: null,
      created_at: from.toISOString(),
    })
    await this.#signal({ to: holderId, kind: 'call', id })
    try {
      return await this.#await(id, holderId, edgeName, options.signal)
    } finally {
      await repo.deleteCall(id).catch(() => {})
    }
  }

  close(): void {
    clearInterval(this.#timer)
    for (const controller of this.#running.values()) controller.abort(new Error('the manager is shutting down'))
  }

  async #await(id: string, holderId: string, edgeName: string, signal: AbortSignal): Promise<Answer> {
    const { repo, pollMs } = this.#o
    let lastHolderCheck = Date.now()
    for (;;) {
      if (signal.aborted) {
        await repo.cancel(id).catch(() => {})
        await this.#signal({ to: holderId, kind: 'cancel', id })
        throw signal.reason
      }
      const row = await repo.getCall(id)
      if (row?.state === 'done' && row.result !== null) return JSON.parse(row.result) as Answer
      if (!row) throw new EdgeUnavailable(`the relayed call for edge "${edgeName}" vanished: its outcome is unknown`)
      if (Date.now() - lastHolderCheck >= HOLDER_CHECK_MS) {
        lastHolderCheck = Date.now()
        if (!(await this.#o.managerAlive(holderId))) {
          throw new EdgeUnavailable(
            `manager ${holderId}, which held edge "${edgeName}", stopped answering${row.state === 'taken' ? ' mid-call: the outcome on the edge is unknown' : ' before the call started'}`,
          )
        }
      }
      // Woken by a result signal, an abort, or the poll interval.
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer)
          signal.removeEventListener('abort', done)
          this.#waiting.delete(id)
          resolve()
        }
        const timer = setTimeout(done, this.#o.signal ? Math.max(pollMs, 500) : this.#o.waitPollMs)
        signal.addEventListener('abort', done, { once: true })
        this.#waiting.set(id, done)
      })
    }
  }

  // One look at the table at a time; a signal arriving meanwhile gets another look after it.
  #take(): void {
    if (this.#taking) {
      this.#takeAgain = true
      return
    }
    this.#taking = true
    void this.#takeCalls().finally(() => {
      this.#taking = false
      if (this.#takeAgain) {
        this.#takeAgain = false
        this.#take()
      }
    })
  }

  async #takeCalls(): Promise<void> {
    const { repo, managerId, logger } = this.#o
    try {
      for (const row of await repo.takeCalls(managerId)) void this.#run(row)
      if (this.#running.size > 0) {
        for (const { id } of await repo.cancelledCalls(managerId)) this.#running.get(id)?.abort(new Error('the caller cancelled the call'))
      }
    } catch (error) {
      logger.warn({ err: error }, 'taking relayed edge calls failed')
    }
  }

  async #run(row: EdgeCallRow): Promise<void> {
    const controller = new AbortController()
    this.#running.set(row.id, controller)
    const taken = new Date().toISOString()
    let answer: Answer
    try {
      const connection = this.#o.connection(row.edge_id)
      if (!connection) throw new EdgeUnavailable(`the manager it was sent to no longer holds the edge's connection`)
      const data = await connection.call(row.skill_key, JSON.parse(row.input), {
        callId: row.id,
        timeoutMs: row.timeout_ms,
        signal: controller.signal,
        progress: () => {},
        secrets: this.#openSecrets(row),
      })
      answer = { ok: true, data }
    } catch (error) {
      const message = (error as Error).message
      answer =
        error instanceof EdgeUnavailable
          ? { ok: false, kind: 'edge', message }
          : isSkillError(error)
            ? { ok: false, kind: 'skill', code: error.code, message }
            : error instanceof EdgeDeadlineExceeded
              ? { ok: false, kind: 'skill', code: 'timeout', message }
              : { ok: false, kind: 'error', message }
    } finally {
      this.#running.delete(row.id)
    }
    if (controller.signal.aborted) return
    try {
      if (await this.#o.repo.answer(row.id, JSON.stringify({ ...answer, taken, answered: new Date().toISOString() })))
        await this.#signal({ to: row.caller_manager_id, kind: 'result', id: row.id })
    } catch (error) {
      this.#o.logger.warn({ err: error, callId: row.id }, 'answering a relayed edge call failed')
    }
  }

  #sealSecrets(id: string, secrets: ReadonlyMap<string, string> | undefined): string | null {
    if (!secrets?.size) return null
    if (!this.#o.sealer) throw new EdgeUnavailable('this manager cannot relay a call that carries secrets (no secrets key)')
    return this.#o.sealer.seal(JSON.stringify(Object.fromEntries(secrets)), `edge call ${id}`)
  }

  #openSecrets(row: EdgeCallRow): Map<string, string> | undefined {
    if (row.secrets === null) return undefined
    const json = this.#o.sealer?.open(row.secrets, `edge call ${row.id}`)
    if (json == null) throw new Error("the relayed call's secrets could not be opened here: managers sharing a database need the same secrets key")
    return new Map(Object.entries(JSON.parse(json) as Record<string, string>))
  }

  async #signal(message: RelaySignal): Promise<void> {
    await this.#o.signal?.(message).catch((error: unknown) => this.#o.logger.warn({ err: error }, 'signalling another manager failed'))
  }
}

function unwrap(answer: Answer, edgeName: string): unknown {
  if (answer.ok) return answer.data
  if (answer.kind === 'edge') throw new EdgeUnavailable(`edge "${edgeName}": ${answer.message}`)
  throw edgeFailure(answer.kind === 'skill' ? answer.code : undefined, answer.message)
}
