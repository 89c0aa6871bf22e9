import type { ContentfulStatusCode } from 'hono/utils/http-status'
import type { ErrorCode } from '../../errors/index.js'

const STATUS: Record<ErrorCode, ContentfulStatusCode> = {
  unauthorized: 401,
  payload_too_large: 413,
  method_not_allowed: 405,
  conflict: 409,
  tampered: 409,
  not_synced: 409,
  render_failed: 500,
  internal: 500,
  invalid_input: 400,
  denied: 403,
  not_found: 404,
  approval_required: 202,
  approval_rejected: 403,
  approval_expired: 410,
  timeout: 504,
  edge_unavailable: 502,
  executor_error: 502,
  invalid_output: 502,
  unavailable: 503,
  // Failed Dependency: nothing ran; the caller (or an admin) has to set a secret or setting first.
  needs_auth: 424,
  needs_input: 424,
  // Not Implemented: what the skill asked of its caller (a question, a completion) this surface can't carry.
  unsupported: 501,
}

/** The HTTP status for an error code (DESIGN.md's public contract): one table, so code and status never disagree. */
export function statusForCode(code: ErrorCode): ContentfulStatusCode {
  return STATUS[code]
}

/** Whether an error's code is one a client may be told as it is: a known code, and not a server fault. */
export function answerable(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(STATUS, code) && code !== 'internal'
}
