/**
 * Every error code a caller can receive: the pipeline's (an envelope's error) and the API's own
 * (keys, body size, decisions that conflict, an unsynced catalog). The HTTP status follows from it.
 */
export type ErrorCode =
  | 'unauthorized'
  | 'payload_too_large'
  | 'method_not_allowed'
  | 'conflict'
  | 'tampered'
  | 'not_synced'
  | 'render_failed'
  | 'internal'
  | 'not_found'
  | 'invalid_input'
  | 'denied'
  | 'approval_required'
  | 'approval_rejected'
  | 'approval_expired'
  | 'timeout'
  | 'edge_unavailable'
  | 'executor_error'
  | 'invalid_output'
  | 'unavailable'
  | 'needs_auth'
  | 'needs_input'
  | 'unsupported'
