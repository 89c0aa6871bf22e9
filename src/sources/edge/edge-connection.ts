import type { Duplex } from 'node:stream'
import type { WebSocket } from 'ws'
import type { Logger } from 'pino'
import type { ProgressUpdate } from '../../skill/index.js'
import { EdgeDeadlineExceeded, EdgeUnavailable, SkillError } from '../../runtime/index.js'
import { CLOSE, fromEdge, parseFrame, type FromEdge } from './protocol.js'
import { FrameWriter } from './frame-writer.js'

export interface EdgeCallOptions {
  callId: string
  timeoutMs: number
  signal: AbortSignal
  progress(update: ProgressUpdate): void
  /** Secrets the skill declared, opened for this call: sent with it only. */
  secrets?: ReadonlyMap<string, string>
}

interface Pending {
  resolve(data: unknown): void
  reject(error: Error): void
  progress(update: ProgressUpdate): void
  signal: AbortSignal
  onAbort(): void
}

/** One edge's tunnel on this manager: calls out, answers back, and the end of all of them when it drops. */
export class EdgeConnection {
  readonly #socket: WebSocket
  readonly #writer: FrameWriter
  readonly #pending = new Map<string, Pending>()
  readonly #logger: Logger
  readonly #maxInFlight: number
  #answeredPing = true
  #closed: string | null = null

  constructor(
    socket: WebSocket,
    readonly edgeId: string,
    readonly name: string,
    readonly connectedAt: string,
    options: { logger: Logger; maxInFlight: number; onClose(connection: EdgeConnection, reason: string): void; raw?: Duplex },
  ) {
    this.#socket = socket
    this.#writer = new FrameWriter(socket, options.raw)
    this.#logger = options.logger
    this.#maxInFlight = options.maxInFlight
    socket.on('message', (data, isBinary) => this.#receive(isBinary ? null : data))
    socket.on('pong', () => (this.#answeredPing = true))
    socket.on('error', (error) => this.#logger.warn({ edge: name, err: error }, 'edge connection error'))
    socket.on('close', (code, reason) => {
      const why = this.#closed ?? `the connection closed (${code}${reason.length ? ` ${reason.toString('utf8')}` : ''})`
      this.#closed = why
      this.#failAll(why)
      options.onClose(this, why)
    })
  }

  get inFlight(): number {
    return this.#pending.size
  }

  /** Send a call and wait for its answer; an abort tells the edge to stop and rejects at once. */
  call(key: string, input: unknown, options: EdgeCallOptions): Promise<unknown> {
    if (this.#closed) return Promise.reject(new EdgeUnavailable(`edge "${this.name}" disconnected: ${this.#closed}`))
    if (this.#pending.size >= this.#maxInFlight) {
      return Promise.reject(new SkillError('unavailable', `edge "${this.name}" already runs ${this.#maxInFlight} calls, its limit: retry later`))
    }
    const { callId: id, signal } = options
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        if (!this.#pending.delete(id)) return
        this.#send({ type: 'cancel', id, reason: String((signal.reason as Error | undefined)?.message ?? 'cancelled') })
        reject(signal.reason as Error)
      }
      this.#pending.set(id, { resolve, reject, progress: options.progress, signal, onAbort })
      signal.addEventListener('abort', onAbort, { once: true })
      this.#send({ type: 'call', id, key, input, timeoutMs: options.timeoutMs, ...(options.secrets?.size && { secrets: Object.fromEntries(options.secrets) }) })
    })
  }

  /** One heartbeat: a connection that did not answer the last ping is dead. */
  heartbeat(): void {
    if (!this.#answeredPing) {
      this.#closed ??= 'no heartbeat answer: the connection is dead'
      this.#socket.terminate()
      return
    }
    this.#answeredPing = false
    this.#socket.ping()
  }

  close(code: number, reason: string): void {
    this.#closed ??= reason
    this.#socket.close(code, reason.slice(0, 120))
    // A peer that never answers the close handshake is cut off.
    setTimeout(() => this.#socket.terminate(), 2_000).unref()
  }

  #send(message: object): void {
    this.#writer.send(JSON.stringify(message))
  }

  #receive(data: unknown): void {
    const parsed = data === null ? ({ ok: false, reason: 'a binary frame' } as const) : parseFrame(fromEdge, data)
    if (!parsed.ok) {
      this.#logger.warn({ edge: this.name, reason: parsed.reason }, 'edge sent a malformed message; closing its connection')
      this.close(CLOSE.malformed, `protocol error: ${parsed.reason}`)
      return
    }
    this.#answer(parsed.value)
  }

  #answer(message: FromEdge): void {
    const pending = this.#pending.get(message.id)
    // Only calls it was sent, and only once: a late answer after a cancel is dropped.
    if (!pending) return
    if (message.type === 'progress') {
      pending.progress({ progress: message.progress, total: message.total, message: message.message })
      return
    }
    this.#pending.delete(message.id)
    pending.signal.removeEventListener('abort', pending.onAbort)
    if (message.ok) return pending.resolve(message.data)
    pending.reject(edgeFailure(message.error.code, `on edge "${this.name}": ${message.error.message}`))
  }

  #failAll(why: string): void {
    for (const [id, pending] of this.#pending) {
      this.#pending.delete(id)
      pending.signal.removeEventListener('abort', pending.onAbort)
      pending.reject(new EdgeUnavailable(`edge "${this.name}" disconnected mid-call (${why}): the outcome on the edge is unknown`))
    }
  }
}

/** What an edge's refusal becomes in the pipeline: its own code where the pipeline has one for it, else a failure (executor_error). */
export function edgeFailure(code: string | undefined, message: string): Error {
  if (code === 'timeout') return new EdgeDeadlineExceeded(message)
  return code === 'invalid_input' || code === 'not_found' || code === 'unavailable' ? new SkillError(code, message) : new Error(message)
}
