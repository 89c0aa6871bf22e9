import type { Context } from 'hono'
import type { ErrorCode } from '../../errors/index.js'
import { statusForCode } from './status-for-code.js'

/** A JSON error body, with the status its code has (failures outside the pipeline, and refusals). */
export function errorResponse(c: Context, code: ErrorCode, message: string, details?: object) {
  return c.json({ ok: false, error: details ? { code, message, details } : { code, message } }, statusForCode(code))
}
