import { randomUUID } from 'node:crypto'
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { RequestId } from '@modelcontextprotocol/sdk/types.js'
import type { Skillplane } from '../../agents/index.js'
import { connectLink, type ConnectLink } from '../../access/index.js'
import type { Envelope } from '../../skill/index.js'

export interface ConnectInCall {
  /** The tool call's request: the elicitation and its completion travel with it. */
  requestId: RequestId
  /** The client's cancellation of the tool call. */
  signal: AbortSignal
  /** The person calling: the link connects their account. */
  person: string | null
  /** The longest the call waits for the person to connect. */
  waitMs: number
}

/**
 * A call refused for want of a person's connection, to a client that takes URL elicitations: the
 * person is sent to the link through their client, and the call waits (no longer than `waitMs`,
 * and only while the client waits) until they have connected, runs again through the pipeline and
 * answers with that result, telling the client the elicitation is complete. Declined, cancelled,
 * or not connected in time: the refusal, as a client without elicitation gets it.
 */
export async function connectInCall(
  server: Server,
  plane: Skillplane,
  refused: Envelope,
  link: ConnectLink,
  retry: () => Promise<Envelope>,
  options: ConnectInCall,
): Promise<Envelope> {
  const elicitationId = randomUUID()
  const title = plane.oauth.providers().find((p) => p.name === link.provider)?.title ?? link.provider
  const sendOptions = { relatedRequestId: options.requestId }
  let heard = false
  let wake = () => {}
  // Listening before the person gets the link: a connection made before they answer still counts.
  // Connections made on other managers are heard too, at their next refresh.
  const unsubscribe = plane.oauth.onConnected((provider, subject) => {
    if (provider !== link.provider || subject !== options.person) return
    heard = true
    wake()
  })
  const deadline = AbortSignal.any([options.signal, AbortSignal.timeout(options.waitMs)])
  let envelope = refused
  try {
    const answer = await server.elicitInput(
      {
        mode: 'url',
        elicitationId,
        url: link.url,
        message: `This needs a ${title} connection first: open the link and sign in there. The call runs as soon as it is connected.`,
      },
      // The person has all of waitMs to open the link, not the SDK's default of 60 s.
      { signal: deadline, timeout: options.waitMs, ...sendOptions },
    )
    if (answer.action !== 'accept') return envelope
    for (;;) {
      if (!heard && !(await woken(deadline, (resolve) => (wake = resolve)))) return envelope
      heard = false
      envelope = await retry()
      if (!connectLink(envelope)) {
        await server
          .createElicitationCompletionNotifier(elicitationId, sendOptions)()
          .catch(() => {})
        return envelope
      }
    }
  } catch {
    // A client that fails the elicitation, or gives up on it, gets the refusal with its link.
    return envelope
  } finally {
    unsubscribe()
  }
}

/** True when `listen`'s callback runs first, false once `deadline` aborts. */
function woken(deadline: AbortSignal, listen: (resolve: () => void) => void): Promise<boolean> {
  if (deadline.aborted) return Promise.resolve(false)
  return new Promise((resolve) => {
    const onAbort = () => resolve(false)
    deadline.addEventListener('abort', onAbort, { once: true })
    listen(() => {
      deadline.removeEventListener('abort', onAbort)
      resolve(true)
    })
  })
}
