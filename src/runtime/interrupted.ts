import { ShuttingDown } from './abort-reasons.js'
import { refusal, type Refusal } from './refusal.js'

/** The refusal for a call that was cancelled: a shutdown, or its caller gone. */
export function interrupted(cancel: { reason: unknown }): Refusal {
  const shutdown = cancel.reason instanceof ShuttingDown
  return refusal('unavailable', shutdown ? (cancel.reason as Error).message : 'the call was cancelled by its caller', 'interrupted')
}
