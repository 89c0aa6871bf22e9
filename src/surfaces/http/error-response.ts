import type { Context } from 'hono'
import type { ContentfulStatusCode } from 'hono/utils/http-status'

/** A JSON error body for failures outside the pipeline (auth, routing, malformed requests). */
export function errorResponse(c: Context, status: ContentfulStatusCode, code: string, message: string, details?: object) {
  return c.json({ ok: false, error: details ? { code, message, details } : { code, message } }, status)
}
