import type { ContentfulStatusCode } from 'hono/utils/http-status'
import type { ErrorCode } from '../../skill/skill-types.js'

const STATUS: Record<ErrorCode, ContentfulStatusCode> = {
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
}

/** The HTTP status for a pipeline error code (DESIGN.md's public contract). */
export function statusForCode(code: ErrorCode): ContentfulStatusCode {
  return STATUS[code]
}
