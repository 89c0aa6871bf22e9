import type { EventStore } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import type { Logger } from 'pino'
import type { McpSessionRepository } from '../../store/index.js'

// The id of an event that could not be stored: no stored event has it, so a Last-Event-ID naming it replays nothing.
const UNSTORED = '0'
// How many events a session stores between two trims to its cap.
const TRIM_EVERY = 100

export interface SessionEventStoreOptions {
  repo: McpSessionRepository
  sessionId: string
  /** The newest events a session keeps; older ones go (in steps of 100). */
  maxEvents: number
  /** What a session's events may take together, as stored (sealed: about 4/3 of the messages' JSON); older ones go. */
  maxBytes: number
  /** The largest message (its JSON, in bytes) stored as is; a larger one goes out live but is stored as a note saying so. */
  maxEventBytes: number
  clock: () => number
  logger: Logger
}

/**
 * The server-sent events of one /mcp session, in the database: a Last-Event-ID is looked up among
 * this session's events only, so another session's id (or a guessed one) finds and replays nothing.
 */
export class SessionEventStore implements EventStore {
  readonly #o: SessionEventStoreOptions
  #recording: boolean
  #stored = 0
  #bytesSinceTrim = 0
  /** The last store begun (never rejects): the next one waits for it. */
  #last: Promise<unknown> = Promise.resolve()

  constructor(options: SessionEventStoreOptions, { recording = true } = {}) {
    this.#o = options
    this.#recording = recording
  }

  /** Store events from now on (a re-opened session's replayed initialize is not worth storing). */
  record(): void {
    this.#recording = true
  }

  /**
   * One insert at a time, in the order the transport sends: it writes each message once its store
   * resolves, so an answer can't overtake the progress notifications sent before it (and end the stream without them).
   */
  storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const stored = this.#last.then(() => this.#insert(streamId, message))
    this.#last = stored
    return stored
  }

  async #insert(streamId: string, message: JSONRPCMessage): Promise<string> {
    if (!this.#recording) return UNSTORED
    const { repo, sessionId, clock } = this.#o
    // A priming event carries no message: the SDK stores it as {}.
    const priming = !('jsonrpc' in message)
    try {
      const { id, bytes } = await repo.addEvent(sessionId, streamId, priming ? null : this.#fitting(message), clock())
      this.#bytesSinceTrim += bytes
      // Trimmed often enough that neither cap is overshot by more than a tenth (and one event).
      if (++this.#stored % TRIM_EVERY === 0 || this.#bytesSinceTrim >= this.#o.maxBytes / 10) {
        this.#bytesSinceTrim = 0
        void repo.capEvents(sessionId, this.#o.maxEvents, this.#o.maxBytes).catch((error: unknown) => this.#warn(error))
      }
      return id
    } catch (error) {
      // The message still goes out live; only resuming past it is lost.
      this.#warn(error)
      return UNSTORED
    }
  }

  /**
   * The message, or what replays in place of one too large to keep: an answer becomes an error
   * answer to the same request, anything else a warning log line; either says what is missing.
   */
  #fitting(message: JSONRPCMessage): JSONRPCMessage {
    const size = Buffer.byteLength(JSON.stringify(message))
    const cap = this.#o.maxEventBytes
    if (size <= cap) return message
    const what = `(${size} bytes) was too large to keep for resuming (over ${cap} bytes)`
    if ('id' in message && ('result' in message || 'error' in message)) {
      return { jsonrpc: '2.0', id: message.id, error: { code: -32603, message: `the answer ${what}: call again` } }
    }
    return {
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { level: 'warning', logger: 'skillplane', data: `a message of this stream ${what} and is missing here` },
    }
  }

  getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.#o.repo.streamOf(this.#o.sessionId, eventId)
  }

  async replayEventsAfter(lastEventId: string, { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> }): Promise<string> {
    const { repo, sessionId } = this.#o
    const streamId = await repo.streamOf(sessionId, lastEventId)
    if (streamId === undefined) throw new Error(`no event ${lastEventId} in this session`)
    for (const event of await repo.eventsAfter(sessionId, streamId, lastEventId)) {
      if (event.message !== null) await send(event.id, event.message as JSONRPCMessage)
      // Sealed under a rotated key, or moved here from another session: it does not open, and is not sent.
      else this.#o.logger.warn({ mcpSession: sessionId, event: event.id }, 'a stored MCP stream event does not open with the secrets key: not replayed')
    }
    return streamId
  }

  #warn(error: unknown): void {
    this.#o.logger.warn({ err: error, mcpSession: this.#o.sessionId }, 'storing an MCP stream event failed: a client reconnecting with Last-Event-ID misses it')
  }
}
