import { AsyncLocalStorage } from 'node:async_hooks'
import { randomUUID } from 'node:crypto'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { CreateMessageRequest, ElicitRequest, ElicitResult, CreateMessageResult } from '@modelcontextprotocol/sdk/types.js'
import { isSkillError } from '../../runtime/index.js'
import type { CallerClient, ElicitParams, LogLevel, SampleParams, SkillLogger } from '../../skill/index.js'
import { LineBudget } from './line-budget.js'
import type { McpSdk } from './mcp-sdk.js'

/** A request to the server on behalf of a call: whom to hand what the server asks during it. */
interface InFlight {
  client: CallerClient | null
  /** Who made the call (`callerKey`); a call without one matches no other caller. */
  caller: string | symbol
  /** The URL-mode elicitations sent on this call's behalf: the server's id → the one its caller saw. */
  elicitations: Map<string, string>
}

// The SDK client reads a request's answer (a Streamable HTTP POST's event stream) inside the async
// context of that request's send, so what the server sends on that stream runs inside it too. Set
// only around the send: connecting and reconnecting (whose streams outlive any call) run outside it.
const during = new AsyncLocalStorage<{ channels: CallChannels; call: InFlight }>()

// JSON-RPC codes (the SDK's ErrorCode): a client without a capability answers MethodNotFound.
const METHOD_NOT_FOUND = -32601
const INVALID_PARAMS = -32602
const INVALID_REQUEST = -32600
const INTERNAL_ERROR = -32603
// The SDK's own failures, not the server's answer: the server may still be working on the request.
const CONNECTION_CLOSED = -32000
const REQUEST_TIMEOUT = -32001

/** How long at least a call that ended unanswered may still be worked on upstream (see `Options.timeoutMs`). */
export const MIN_ORPHAN_MS = 5 * 60_000

const NO_CHANNEL = 'the call has no channel to its caller (an HTTP API or CLI call, or a request made without one)'
type FormParams = Extract<ElicitParams, { mode?: 'form' }>

/** An error the SDK sends as it is: its code, and this message (McpError would prefix "MCP error <code>:"). */
const rpcError = (code: number, message: string) => Object.assign(new Error(message), { code })

interface Options {
  server: string
  logger: SkillLogger
  /** Scrubs the connection's own credentials from what is logged. */
  clean(text: string): string
  /** The server's `timeoutMs`: a call that ended without an answer counts as still worked on upstream that long, and at least MIN_ORPHAN_MS. */
  timeoutMs: number | undefined
}

/** A call that ended (aborted, timed out, cancelled) before the server answered: it may still ask or log. */
interface Orphan {
  caller: string | symbol
  until: number
}

/**
 * What an imported server asks of its client (elicitation, sampling) and tells it (log lines),
 * handed to the caller of the call that caused it, and to no one else. A message on a call's own
 * answer stream belongs to that call; one outside any (stdio, the standalone event stream) belongs
 * to the one call in flight on this connection, if exactly one is and no call of another caller
 * ended here unanswered lately (its handler may still be running); otherwise it is refused (a
 * request) or kept in skillplane's own log (a log line).
 */
export class CallChannels {
  readonly #inFlight = new Set<InFlight>()
  readonly #orphans: Orphan[] = []
  readonly #options: Options
  readonly #orphanMs: number
  /** Lines no caller may have, kept in skillplane's log: a chatty server must not flood it. */
  readonly #unowned: LineBudget

  constructor(options: Options) {
    this.#options = options
    // As long as any call to it may last, and no less than minutes: it was told to stop, so a handler still going is stuck.
    this.#orphanMs = Math.max(options.timeoutMs ?? 0, MIN_ORPHAN_MS)
    this.#unowned = new LineBudget({
      burst: 20,
      perSecond: 5,
      reportMs: 5_000,
      dropped: (count) =>
        options.logger.info({ server: options.server, dropped: count }, 'MCP server log lines dropped: the server logs faster than skillplane keeps'),
    })
  }

  /** Send a request on behalf of a call whose caller is reached through `client`. */
  async during<T>(client: CallerClient | null | undefined, caller: string | undefined, signal: AbortSignal, send: () => Promise<T>): Promise<T> {
    const call: InFlight = { client: client ?? null, caller: caller ?? Symbol('unnamed caller'), elicitations: new Map() }
    this.#inFlight.add(call)
    let answered = false
    try {
      const result = await during.run({ channels: this, call }, send)
      answered = true
      return result
    } catch (error) {
      const code = (error as { code?: unknown }).code
      answered = !signal.aborted && typeof code === 'number' && code !== CONNECTION_CLOSED && code !== REQUEST_TIMEOUT
      throw error
    } finally {
      this.#inFlight.delete(call)
      if (!answered) this.#orphans.push({ caller: call.caller, until: this.#prune() + this.#orphanMs })
    }
  }

  /** Answer the server's requests and hear its log lines on this client (declare the capabilities first). */
  serve(client: Client, sdk: McpSdk): void {
    // A new connection: the server's handlers of the old one's requests can't reach this one.
    this.#orphans.length = 0
    client.setRequestHandler(sdk.ElicitRequestSchema, (request, extra) => this.#elicit(request.params, extra.signal))
    client.setRequestHandler(sdk.CreateMessageRequestSchema, (request, extra) => this.#sample(request.params, extra.signal))
    client.setNotificationHandler(sdk.LoggingMessageNotificationSchema, ({ params }) => this.#log(params))
    client.setNotificationHandler(sdk.ElicitationCompleteNotificationSchema, ({ params }) => this.#completed(params.elicitationId))
  }

  /** Forget the ended calls whose time is up; returns now. */
  #prune(): number {
    const now = Date.now()
    for (let i = this.#orphans.length - 1; i >= 0; i--) if (this.#orphans[i]!.until <= now) this.#orphans.splice(i, 1)
    return now
  }

  /** The call this message belongs to, or why none can be told. */
  #attribute(): InFlight | { refused: string } {
    const store = during.getStore()
    if (store?.channels === this) {
      // Its call has ended: the message is late, and no other caller may have it.
      return this.#inFlight.has(store.call) ? store.call : { refused: 'the call it came with has ended' }
    }
    if (this.#inFlight.size === 1) {
      const only = this.#inFlight.values().next().value!
      this.#prune()
      if (!this.#orphans.some((orphan) => orphan.caller !== only.caller)) return only
      return {
        refused: `it came outside any request's answer stream while a call of another caller that ended here unanswered may still be running on the server`,
      }
    }
    return {
      refused:
        this.#inFlight.size === 0
          ? 'no call is in progress on this connection'
          : `it came outside any request's answer stream while ${this.#inFlight.size} calls are in progress on this connection`,
    }
  }

  async #elicit(params: ElicitRequest['params'], signal: AbortSignal): Promise<ElicitResult> {
    const { client, elicitations } = this.#forRequest('elicitation/create')
    if (!client) throw rpcError(METHOD_NOT_FOUND, `Method not found: ${NO_CHANNEL} to answer elicitation requests`)
    let asked: ElicitParams
    if (params.mode === 'url') {
      // The caller sees an id of skillplane's: two servers' ids can't collide in one session.
      const id = randomUUID()
      elicitations.set(params.elicitationId, id)
      asked = { mode: 'url', message: params.message, url: params.url, elicitationId: id }
    } else {
      asked = { mode: 'form', message: params.message, requestedSchema: params.requestedSchema as FormParams['requestedSchema'] }
    }
    try {
      const result = await client.elicit(asked, { signal })
      return { action: result.action, ...(result.content && { content: result.content }) }
    } catch (error) {
      // A client with elicitation but not this mode answers as the SDK's client does: invalid params.
      const otherMode = params.mode === 'url' ? client.capabilities.elicitation.form : client.capabilities.elicitation.url
      throw this.#failed('elicitation', error, otherMode ? INVALID_PARAMS : METHOD_NOT_FOUND)
    }
  }

  async #sample(params: CreateMessageRequest['params'], signal: AbortSignal): Promise<CreateMessageResult> {
    const { client } = this.#forRequest('sampling/createMessage')
    if (!client) throw rpcError(METHOD_NOT_FOUND, `Method not found: ${NO_CHANNEL} to answer sampling requests`)
    // The server's own request metadata (a task, a progress token) means nothing to the caller.
    const asked: Record<string, unknown> = { ...params }
    delete asked._meta
    delete asked.task
    try {
      return (await client.sample(asked as unknown as SampleParams, { signal })) as CreateMessageResult
    } catch (error) {
      throw this.#failed('sampling', error, METHOD_NOT_FOUND)
    }
  }

  #forRequest(method: string): InFlight {
    const call = this.#attribute()
    if (!('refused' in call)) return call
    const { server, logger } = this.#options
    logger.warn({ server, method, reason: call.refused }, 'an MCP server request was refused: skillplane can not tell which call it belongs to')
    throw rpcError(INVALID_REQUEST, `skillplane can't tell which call this ${method} request belongs to (${call.refused}), so it reaches no caller`)
  }

  /** The caller could not answer: the server hears why; a caller that can't at all answers as a client without the capability. */
  #failed(what: 'elicitation' | 'sampling', error: unknown, unsupportedCode: number): Error {
    // The SDK's errors say "MCP error <code>:" first; the server's SDK will say that of ours again.
    const message = (error instanceof Error ? error.message : String(error)).replace(/^MCP error -?\d+: /, '')
    if (isSkillError(error) && error.code === 'unsupported') {
      return rpcError(unsupportedCode, unsupportedCode === METHOD_NOT_FOUND ? `Method not found: ${message}` : message)
    }
    return rpcError(INTERNAL_ERROR, `the caller did not answer the ${what} request: ${message}`)
  }

  #log(params: { level: LogLevel; logger?: string; data?: unknown }): void {
    const { server, logger, clean } = this.#options
    const call = this.#attribute()
    const source = params.logger ? `${server}/${params.logger}` : server
    if ('refused' in call || !call.client) {
      // Only skillplane's own log may keep a line no caller can be told it is theirs.
      if (!this.#unowned.take()) return
      logger.debug(
        { server, serverLevel: params.level, logger: params.logger, data: clean(JSON.stringify(params.data ?? null)).slice(0, 2000) },
        'MCP server log line',
      )
      return
    }
    call.client.log({ level: params.level, logger: source, data: params.data })
  }

  #completed(upstreamId: string): void {
    for (const call of this.#inFlight) {
      const id = call.elicitations.get(upstreamId)
      if (id === undefined) continue
      call.elicitations.delete(upstreamId)
      call.client?.elicitationComplete?.(id)
      return
    }
  }
}
