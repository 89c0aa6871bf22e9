/** Where an approval request is in its lifecycle (docs/approvals.md#lifecycle). */
export type ApprovalStatus = 'pending' | 'approved' | 'rejected' | 'expired' | 'executed' | 'withdrawn'
export const APPROVAL_STATUSES: readonly ApprovalStatus[] = ['pending', 'approved', 'rejected', 'expired', 'executed', 'withdrawn']
