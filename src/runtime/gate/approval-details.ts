import type { ApprovalView } from '../../policy/index.js'

/** What a caller is told of the request its call waits for. */
export function approvalDetails(request: ApprovalView): Record<string, unknown> {
  return {
    approvalId: request.id,
    approvalsRequired: request.approvalsRequired,
    approverRole: request.approverRole,
    sopRequired: request.sopRequired,
    reason: request.reason,
    expiresAt: request.expiresAt,
  }
}
