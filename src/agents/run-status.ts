/** Where an agent run is: running, paused for approval or for a person to connect an account, or finished either way. */
export const RUN_STATUSES = ['running', 'awaiting_approval', 'needs_auth', 'completed', 'failed'] as const
export type RunStatus = (typeof RUN_STATUSES)[number]
