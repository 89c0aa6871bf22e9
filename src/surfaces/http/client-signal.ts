import type { ServerResponse } from 'node:http'
import type { HttpBindings } from '@hono/node-server'
import type { Context } from 'hono'
import type { CallerSignal } from '../../runtime/index.js'

const GONE = 'the client closed the connection before its answer'

/**
 * Tells a call that its HTTP client went away: the response closed before it was sent. It listens
 * to the Node response itself, so a request costs no AbortController (reading `c.req.raw.signal`
 * makes one); served some other way (`app.request` in tests), it is the request's own signal.
 */
export function clientSignal(c: Context): CallerSignal {
  const outgoing = (c.env as Partial<HttpBindings> | undefined)?.outgoing
  return outgoing ? new ResponseClosed(outgoing) : c.req.raw.signal
}

class ResponseClosed implements CallerSignal {
  readonly reason = GONE
  readonly #outgoing: ServerResponse
  readonly #listeners = new Map<() => void, () => void>()

  constructor(outgoing: ServerResponse) {
    this.#outgoing = outgoing
  }

  get aborted(): boolean {
    return this.#outgoing.destroyed && !this.#outgoing.writableFinished
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    const outgoing = this.#outgoing
    const onClose = () => {
      this.#listeners.delete(listener)
      if (!outgoing.writableFinished) listener()
    }
    this.#listeners.set(listener, onClose)
    outgoing.once('close', onClose)
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const onClose = this.#listeners.get(listener)
    if (!onClose) return
    this.#listeners.delete(listener)
    this.#outgoing.off('close', onClose)
  }
}
