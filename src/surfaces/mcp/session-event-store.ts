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
      const id = await repo.addEvent(sessionId, streamId, priming ? null : message, clock())
      if (++this.#stored % TRIM_EVERY === 0) void repo.capEvents(sessionId, this.#o.maxEvents).catch((error: unknown) => this.#warn(error))
      return id
    } catch (error) {
      // The message still goes out live; only resuming past it is lost.
      this.#warn(error)
      return UNSTORED
    }
  }

  getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.#o.repo.streamOf(this.#o.sessionId, eventId)
  }

  async replayEventsAfter(lastEventId: string, { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> }): Promise<string> {
    const { repo, sessionId } = this.#o
    const streamId = await repo.streamOf(sessionId, lastEventId)
    if (streamId === undefined) throw new Error(`no event ${lastEventId} in this session`)
    for (const event of await repo.eventsAfter(sessionId, streamId, lastEventId)) await send(event.id, event.message as JSONRPCMessage)
    return streamId
  }

  #warn(error: unknown): void {
    this.#o.logger.warn({ err: error, mcpSession: this.#o.sessionId }, 'storing an MCP stream event failed: a client reconnecting with Last-Event-ID misses it')
  }
}
