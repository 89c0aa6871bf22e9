import { ShuttingDown } from '../abort-reasons.js'
import { refusal, type Refusal } from './refusal.js'

/** The refusal for a call whose signal aborted: a shutdown, or its caller gone. */
export function interrupted(signal: AbortSignal): Refusal {
  const shutdown = signal.reason instanceof ShuttingDown
  return refusal('unavailable', shutdown ? (signal.reason as Error).message : 'the call was cancelled by its caller', 'interrupted')
}
