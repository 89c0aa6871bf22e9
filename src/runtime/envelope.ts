import type { Envelope, EnvelopeError } from '../skill/index.js'
import type { ErrorCode } from '../errors/index.js'

export function success<T>(data: T, callId: string): Envelope<T> {
  return { ok: true, data, callId }
}

export function failure(code: ErrorCode, message: string, callId: string, details?: Record<string, unknown>): Envelope<never> {
  const error: EnvelopeError = details ? { code, message, details } : { code, message }
  return { ok: false, error, callId }
}
