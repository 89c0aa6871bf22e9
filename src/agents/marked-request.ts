import { markSecretFields } from '../audit/index.js'

/**
 * An input step's stored request with its form's secret fields marked writeOnly, as served: one
 * stored before the server marked them (an older manager's) still has its secrets typed unseen.
 */
export function markedRequest(request: unknown): unknown {
  if (typeof request !== 'object' || request === null || !('requestedSchema' in request)) return request
  return { ...request, requestedSchema: markSecretFields(request.requestedSchema) }
}
