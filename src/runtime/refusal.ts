import type { ErrorCode } from '../errors/index.js'

/** How a call ends up in the audit log. */
export type CallStatus = 'ok' | 'error' | 'denied' | 'timeout' | 'interrupted' | 'approval_required'

/** Why a stage stops the call, and how its audit row ends. */
export interface Refusal {
  refused: true
  code: ErrorCode
  message: string
  status: CallStatus
  details?: Record<string, unknown>
  /** A gate-only check leaves a row only when it filed an approval request. */
  filed?: boolean
}

export function refusal(code: ErrorCode, message: string, status: CallStatus, details?: Record<string, unknown>): Refusal {
  return details ? { refused: true, code, message, status, details } : { refused: true, code, message, status }
}

export function isRefusal(value: unknown): value is Refusal {
  return typeof value === 'object' && value !== null && (value as Refusal).refused === true
}
