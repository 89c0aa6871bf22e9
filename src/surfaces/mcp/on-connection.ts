import type { Plane } from '../../plane/index.js'

/** A connection made ready: the provider, and whose it is ('' for the service account). */
export type ConnectionListener = (provider: string, subject: string) => void

const PREFIX = 'connection:'

/**
 * Hear each connection a person makes, in this process at once and on any manager sharing the
 * database through its audit event (`connection.connected`, within about a second). A connection
 * may be heard twice: listeners check what they wait for. Returns the unsubscribe function.
 */
export function onConnection(plane: Plane, listener: ConnectionListener): () => void {
  // TODO(core): plane.oauth lands with the OAuth core; until then the contract's shape.
  const local = (plane as Plane & { oauth: { onConnected(listener: ConnectionListener): () => void } }).oauth.onConnected(listener)
  const shared = plane.audit.events.tail.subscribe((event) => {
    if (event.kind !== 'connection.connected' || !event.subject.startsWith(PREFIX)) return
    const subject = event.details.subject
    listener(event.subject.slice(PREFIX.length), typeof subject === 'string' ? subject : '')
  })
  return () => {
    local()
    shared()
  }
}
