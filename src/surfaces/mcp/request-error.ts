import { ErrorCode } from '@modelcontextprotocol/sdk/types.js'
import type { Envelope } from '../../skill/index.js'

// The MCP specification's code for a resource that doesn't exist.
const RESOURCE_NOT_FOUND = -32002

/** A JSON-RPC error that goes out as written (McpError's message starts "MCP error CODE:", which SDK clients add again). */
export class RequestError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message)
  }
}

/** The MCP specification's resource-not-found error, naming the URI in the message and in data. */
export function notFound(uri: string, why: string, callId?: string): RequestError {
  return new RequestError(RESOURCE_NOT_FOUND, `resource ${JSON.stringify(uri)} not found: ${why}`, { uri, ...(callId && { callId }) })
}

/** The call's data, or the refusal as the MCP error a client understands (`missing`: the answer to not_found). */
export function unwrap(envelope: Envelope, what: string, missing: (why: string, callId: string) => RequestError): unknown {
  if (envelope.ok) return envelope.data
  const { code, message } = envelope.error
  if (code === 'not_found') throw missing(message, envelope.callId)
  if (code === 'invalid_input') throw new RequestError(ErrorCode.InvalidParams, `${what}: ${message}`, { callId: envelope.callId })
  throw new RequestError(ErrorCode.InternalError, `${what}: ${code}: ${message}`, { callId: envelope.callId })
}
