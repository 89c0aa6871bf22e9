/** Where an agent run is: running, paused for approval, or finished either way. */
export const RUN_STATUSES = ['running', 'awaiting_approval', 'completed', 'failed'] as const
export type RunStatus = (typeof RUN_STATUSES)[number]
