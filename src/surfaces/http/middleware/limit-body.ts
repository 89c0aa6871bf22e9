import type { MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { errorResponse } from '../error-response.js'

/**
 * 413 for bodies over maxBytes. A declared Content-Length is checked from the header alone:
 * hono's bodyLimit reads `req.raw.body`, which makes the Node adapter build a full Request
 * stream per call; it is kept for chunked bodies, whose size is only known while reading.
 */
export function limitBody(maxBytes: number): MiddlewareHandler {
  const tooLarge: Parameters<typeof bodyLimit>[0]['onError'] = (c) => errorResponse(c, 'payload_too_large', `request body exceeds the ${maxBytes}-byte limit`)
  const streaming = bodyLimit({ maxSize: maxBytes, onError: tooLarge })
  return async (c, next) => {
    const length = c.req.header('content-length')
    if (length !== undefined && c.req.header('transfer-encoding') === undefined) {
      return Number(length) > maxBytes ? tooLarge(c) : next()
    }
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next()
    return streaming(c, next)
  }
}
