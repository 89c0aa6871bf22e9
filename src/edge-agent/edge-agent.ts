import { arch, hostname, platform, release } from 'node:os'
import type { Duplex } from 'node:stream'
import { WebSocket } from 'ws'
import type { Logger } from 'pino'
import { createSkill, type Skill, type SkillContext, type SkillDefinition, describeIssues } from '../skill/index.js'
import { CallCancel, isSkillError, NO_CALLER_CLIENT } from '../runtime/index.js'
import {
  CLOSE,
  CONNECT_PATH,
  FrameWriter,
  MAX_FRAME_BYTES,
  PROTOCOL_VERSION,
  edgeProtocol,
  type EdgeErrorCode,
  type OfferedSkill,
} from '../sources/edge/index.js'
import { VERSION } from '../version.js'
import { SkillplaneError } from '../errors/index.js'

export interface EdgeAgentOptions {
  /** Manager base URLs (http or https); tried in turn when one is down. */
  managers: string[]
  token: string
  /** Checked by the manager against the token's edge. */
  name?: string
  labels: Record<string, string>
  /** What this edge offers: built-in host skills and its packs, with their scope set to host. */
  skills: Array<{ definition: SkillDefinition; origin: string }>
  logger: Logger
  /** Calls run at once; more are refused. */
  maxInFlight?: number
}

const BACKOFF_BASE_MS = 500
const BACKOFF_MAX_MS = 30_000
// Room in a frame for the envelope around a result.
const MAX_RESULT_BYTES = MAX_FRAME_BYTES - 4096

/** The edge's refusal to run something: the process ends with this (a revoked token, a wrong identity). */
export class EdgeRefused extends SkillplaneError {
  override readonly code = 'denied'
  override readonly name = 'EdgeRefused'
}

/**
 * The process on a host: it dials out to a manager, announces itself and its skills, and runs the
 * calls the manager sends, nothing else: no text from the manager is ever run as a command. It
 * reconnects with jittered backoff, trying the next manager URL after a failure.
 */
export class EdgeAgent {
  readonly #o: EdgeAgentOptions
  readonly #skills = new Map<string, Skill>()
  readonly #running = new Map<string, CallCancel>()
  #socket: WebSocket | null = null
  #attempt = 0
  #managerIndex = 0
  #stopped = false
  #retry: NodeJS.Timeout | undefined
  #silence: NodeJS.Timeout | undefined
  #armedUntil = 0
  #quietUntil = 0
  #done!: (error?: Error) => void
  /** Settles when the agent stops: resolved by stop(), rejected by a refusal it can't get past. */
  readonly finished: Promise<void>
  /** The manager URL and edge id of the current connection, once welcomed. */
  connected: { manager: string; edgeId: string; managerId: string } | null = null

  constructor(options: EdgeAgentOptions) {
    this.#o = options
    for (const { definition, origin } of options.skills) {
      this.#skills.set(definition.key, createSkill({ ...definition, scope: 'host' }, { source: 'edge', origin, defaultTimeoutMs: 30_000 }))
    }
    this.finished = new Promise((resolve, reject) => (this.#done = (error) => (error ? reject(error) : resolve())))
  }

  start(): this {
    this.#connect()
    return this
  }

  async stop(): Promise<void> {
    this.#stopped = true
    clearTimeout(this.#retry)
    this.#stopListening()
    for (const running of this.#running.values()) running.abort(new Error('the edge is shutting down'))
    const socket = this.#socket
    if (socket && socket.readyState === WebSocket.OPEN) {
      await new Promise<void>((resolve) => {
        socket.once('close', () => resolve())
        socket.close(1001, 'the edge is shutting down')
        setTimeout(() => (socket.terminate(), resolve()), 2_000).unref()
      })
    }
    this.#done()
  }

  /** The skills as announced: what the manager may call, each with the reason it can't run, if any. */
  offered(): OfferedSkill[] {
    return [...this.#skills.values()].map((skill) => {
      let unavailable: string | null
      try {
        unavailable = skill.unavailable()
      } catch (error) {
        unavailable = `its availability check failed: ${(error as Error).message}`
      }
      return {
        key: skill.key,
        title: skill.title,
        description: skill.description,
        class: skill.class,
        category: skill.category,
        tags: skill.tags,
        inputSchema: skill.input.jsonSchema,
        ...(skill.output && { outputSchema: skill.output.jsonSchema }),
        timeoutMs: skill.timeoutMs,
        unavailable,
        ...(skill.secrets.length > 0 && { secrets: skill.secrets }),
        ...(skill.oauth && { oauth: skill.oauth }),
      }
    })
  }

  #connect(): void {
    if (this.#stopped) return
    const base = this.#o.managers[this.#managerIndex % this.#o.managers.length]!
    const url = new URL(CONNECT_PATH, base.replace(/^http/, 'ws'))
    const { logger } = this.#o
    const socket = new WebSocket(url, { headers: { authorization: `Bearer ${this.#o.token}` }, maxPayload: MAX_FRAME_BYTES, handshakeTimeout: 10_000 })
    this.#socket = socket
    let welcomed = false
    // The connection under the WebSocket, so that the frames of one turn share a write.
    let raw: Duplex | undefined
    socket.on('upgrade', (response) => (raw = response.socket))
    let writer: FrameWriter | undefined
    socket.on('unexpected-response', (_request, response) => {
      let body = ''
      response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8').slice(0, 2000)))
      response.on('end', () => {
        const message = readError(body) ?? `HTTP ${response.statusCode}`
        if (response.statusCode === 401) return this.#refused(`${base} refused this edge's token: ${message}`)
        logger.warn({ manager: base, status: response.statusCode }, `manager refused the connection: ${message}`)
        socket.terminate()
      })
    })
    socket.on('open', () => {
      writer = new FrameWriter(socket, raw)
      const hello = {
        type: 'hello',
        protocol: PROTOCOL_VERSION,
        ...(this.#o.name && { name: this.#o.name }),
        hostname: hostname().slice(0, 253),
        os: `${platform()} ${release()}`.slice(0, 100),
        arch: arch(),
        version: VERSION,
        labels: this.#o.labels,
        skills: this.offered(),
      }
      socket.send(JSON.stringify(hello))
      this.#listenForSilence(30_000)
    })
    socket.on('ping', () => this.#listenForSilence())
    socket.on('message', (data, isBinary) => {
      if (!welcomed) {
        const welcome = isBinary ? null : edgeProtocol.parseFrame(edgeProtocol.welcomeMessage, data)
        if (!welcome?.ok) return socket.close(CLOSE.malformed, 'expected a welcome')
        welcomed = true
        this.#attempt = 0
        this.#heartbeatMs = welcome.value.heartbeatMs
        this.#listenForSilence()
        this.connected = { manager: base, edgeId: welcome.value.edgeId, managerId: welcome.value.managerId }
        logger.info({ manager: base, edge: welcome.value.name, edgeId: welcome.value.edgeId }, 'connected to the manager')
        for (const r of welcome.value.refused) logger.warn({ skill: r.key }, `the manager did not take this skill: ${r.reason}`)
        return
      }
      this.#listenForSilence()
      const parsed = isBinary ? ({ ok: false, reason: 'a binary frame' } as const) : edgeProtocol.parseFrame(edgeProtocol.fromManager, data)
      if (!parsed.ok) {
        logger.warn({ reason: parsed.reason }, 'the manager sent a malformed message; reconnecting')
        return socket.close(CLOSE.malformed, `protocol error: ${parsed.reason}`.slice(0, 120))
      }
      const message = parsed.value
      if (message.type === 'cancel') this.#running.get(message.id)?.abort(new Error(`cancelled by the manager: ${message.reason}`))
      else void this.#run(writer!, message)
    })
    socket.on('error', (error) => logger.debug({ err: error, manager: base }, 'edge connection error'))
    socket.on('close', (code, reason) => {
      this.#stopListening()
      this.connected = null
      // Work for a connection that is gone can't be delivered: it stops.
      for (const running of this.#running.values()) running.abort(new Error('the connection to the manager closed'))
      if (code === CLOSE.revoked) return this.#refused(`the manager closed the connection: ${reason.toString('utf8') || 'this edge was revoked'}`)
      if (this.#stopped) return
      if (welcomed) logger.warn({ manager: base, code, reason: reason.toString('utf8') }, 'disconnected from the manager; reconnecting')
      else logger.warn({ manager: base }, 'could not connect to the manager; trying again')
      this.#scheduleReconnect()
    })
  }

  #heartbeatMs = 10_000

  // A manager that has not pinged for three heartbeats is gone, even if TCP has not noticed. Each
  // message moves the deadline; the timer is set again only when it fires early or must fire sooner.
  #listenForSilence(ms = this.#heartbeatMs * 3): void {
    const until = Date.now() + ms
    this.#quietUntil = until
    if (this.#silence && this.#armedUntil <= until) return
    this.#armSilence(ms)
  }

  #armSilence(ms: number): void {
    clearTimeout(this.#silence)
    this.#armedUntil = Date.now() + ms
    this.#silence = setTimeout(() => {
      const left = this.#quietUntil - Date.now()
      if (left > 0) return this.#armSilence(left)
      this.#silence = undefined
      this.#o.logger.warn('no heartbeat from the manager; reconnecting')
      this.#socket?.terminate()
    }, ms)
    this.#silence.unref()
  }

  #stopListening(): void {
    clearTimeout(this.#silence)
    this.#silence = undefined
  }

  #scheduleReconnect(): void {
    this.#managerIndex++
    const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** Math.min(this.#attempt++, 10))
    // Full jitter: edges cut off together by a restart do not all come back at the same moment.
    const delay = Math.round(ceiling / 2 + (Math.random() * ceiling) / 2)
    this.#retry = setTimeout(() => this.#connect(), delay)
  }

  #refused(why: string): void {
    if (this.#stopped) return
    this.#stopped = true
    this.#stopListening()
    this.#socket?.terminate()
    this.#done(new EdgeRefused(why))
  }

  async #run(writer: FrameWriter, call: edgeProtocol.CallMessage): Promise<void> {
    const reply = (message: object) => writer.send(JSON.stringify(message))
    const fail = (code: EdgeErrorCode, message: string) => reply({ type: 'result', id: call.id, ok: false, error: { code, message: message.slice(0, 8000) } })
    const skill = this.#skills.get(call.key)
    if (!skill) return fail('not_found', `this edge offers no skill "${call.key.slice(0, 100)}"`)
    if (this.#running.has(call.id)) return fail('invalid_input', `call ${call.id} is already running here`)
    if (this.#running.size >= (this.#o.maxInFlight ?? 64)) return fail('unavailable', `this edge already runs ${this.#running.size} calls`)
    const input = skill.input.validate(call.input)
    if (!input.ok) return fail('invalid_input', describeIssues('input', input.issues))
    const running = new CallCancel()
    this.#running.set(call.id, running)
    const timer = setTimeout(() => running.abort(new Error(`the call exceeded its ${call.timeoutMs} ms deadline on the edge`)), call.timeoutMs)
    try {
      const data = await running.race(skill.run(input.value, this.#context(call, running, reply)))
      if (skill.output) {
        const output = skill.output.validate(data)
        if (!output.ok) return fail('invalid_output', describeIssues('output', output.issues))
      }
      const json = JSON.stringify({ type: 'result', id: call.id, ok: true, data: data === undefined ? null : data })
      if (Buffer.byteLength(json) > MAX_RESULT_BYTES) return fail('executor_error', `the result is larger than ${MAX_RESULT_BYTES} bytes, the tunnel's limit`)
      writer.send(json)
    } catch (error) {
      if (running.aborted) return fail(/deadline/.test(String(running.reason)) ? 'timeout' : 'executor_error', errorText(running.reason))
      if (isSkillError(error) && (error.code === 'invalid_input' || error.code === 'not_found' || error.code === 'unavailable'))
        return fail(error.code, error.message)
      fail('executor_error', errorText(error))
    } finally {
      clearTimeout(timer)
      this.#running.delete(call.id)
    }
  }

  #context(call: edgeProtocol.CallMessage, running: CallCancel, reply: (message: object) => void): SkillContext {
    const parent = this.#o.logger
    let logger: Logger | undefined
    return {
      callId: call.id,
      parentCallId: null,
      // The manager checked who may call; the edge knows only that the manager sent it.
      caller: { kind: 'user', id: 'manager', name: 'manager', role: 'admin' },
      agent: null,
      conversationId: null,
      onBehalfOf: null,
      edgeId: this.connected?.edgeId ?? null,
      // Made when the skill first looks: most calls never log or listen for a cancel.
      get signal() {
        return running.signal
      },
      get logger() {
        return (logger ??= parent.child({ callId: call.id }))
      },
      secrets: {
        get: (name) => {
          const value = call.secrets?.[name]
          if (value === undefined) throw new Error(`the manager sent no secret ${JSON.stringify(name)} with this call: declare it in the skill's secrets`)
          return value
        },
        // The manager scrubs the values it sent from what comes back.
        conceal: () => {},
      },
      settings: {
        get: (name) => {
          throw new Error(`settings are resolved on the manager; a skill running on an edge can't read ${JSON.stringify(name)}`)
        },
      },
      progress: (update) => {
        if (!Number.isFinite(update?.progress)) return
        reply({
          type: 'progress',
          id: call.id,
          progress: update.progress,
          ...(Number.isFinite(update.total) && { total: update.total }),
          ...(typeof update.message === 'string' && { message: update.message.slice(0, 1000) }),
        })
      },
      // Questions for the caller don't travel over the edge tunnel.
      client: NO_CALLER_CLIENT,
      invoke: () => Promise.reject(new Error('a skill running on an edge cannot call other skills')),
      memory: { get: onManager, set: onManager, delete: onManager, list: onManager },
      learn: onManager,
    }
  }
}

const onManager = () => Promise.reject(new Error('shared memory and learnings live on the manager; a skill running on an edge cannot use them'))

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

function readError(body: string): string | null {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } }
    return typeof parsed.error?.message === 'string' ? parsed.error.message : null
  } catch {
    return body.trim() || null
  }
}
