import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'

/**
 * The MCP SDK (1.32) hands a notification to its handler a microtask late but settles a response
 * at once, so progress that arrives together with the result finds its handler gone and is lost
 * (typescript-sdk issue 2580, unfixed in 1.x). Settling each response a microtask later, after the
 * notifications that came before it, keeps the order the server sent them in.
 * Call it once the client is connected: connecting installs the handler this wraps.
 */
export function deliverProgressFirst(transport: Transport): void {
  const deliver = transport.onmessage
  if (!deliver) return
  transport.onmessage = (message, extra) => {
    // A response has an id and no method; requests and notifications go on as they came.
    if ('id' in message && !('method' in message)) queueMicrotask(() => deliver(message, extra))
    else deliver(message, extra)
  }
}
