import type { GrantState } from '../store/index.js'

/** How far an approval reaches: this call, the rest of its conversation, or every call of the agent (docs/approvals.md#grants). */
export const GRANT_SCOPES = ['once', 'conversation', 'always'] as const
export type GrantScope = (typeof GRANT_SCOPES)[number]
export const GRANT_STATES = ['active', 'expired', 'revoked'] as const satisfies readonly GrantState[]
/** A conversation grant's lifetime in minutes: what it gets unless the approver says, and the most it may get. */
export const GRANT_MINUTES = { default: 60, max: 24 * 60 } as const
