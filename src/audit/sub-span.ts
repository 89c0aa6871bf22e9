/**
 * What happened inside a call that is no audit row of its own, kept on the call's row (its
 * `spans` column) so a call tree can show it without a tracing backend. Times are ISO strings.
 */
export type SubSpan =
  /** The call went through the database to `holder`, the manager holding the edge; `taken` to `answered` is the edge's part. */
  | { kind: 'relay'; holder: string; edge: string; from: string; to: string; taken: string | null; answered: string | null }
  /** The call ran a tool on another skillplane over MCP, which answered with its own call id. */
  | { kind: 'remote'; server: string; callId: string; from: string; to: string }
  /**
   * The skill asked its caller for input: the question, and what it received (the answer's content
   * scrubbed of the call's secrets), or `error` when no answer came (no channel, a failure).
   */
  | {
      kind: 'elicitation'
      from: string
      to: string
      mode: 'form' | 'url'
      message: string
      action: 'accept' | 'decline' | 'cancel' | null
      content?: Record<string, unknown>
      error?: string
    }
  /** The skill asked its caller's model for a completion: the model, why it stopped and its text (capped), or `error`. */
  | { kind: 'sampling'; from: string; to: string; model: string | null; stopReason: string | null; text: string | null; error?: string }

/** At most this many per call: a call that asks more keeps the first ones. */
export const MAX_SUB_SPANS = 100

/** The sub-spans a stored column holds; anything unreadable (a row from before, a bad value) is none. */
export function parseSubSpans(json: string | null): SubSpan[] {
  if (json === null) return []
  try {
    const value: unknown = JSON.parse(json)
    return Array.isArray(value) ? (value.slice(0, MAX_SUB_SPANS) as SubSpan[]).filter(isSubSpan) : []
  } catch {
    return []
  }
}

function isSubSpan(value: unknown): value is SubSpan {
  const span = value as Partial<Record<string, unknown>> | null
  if (typeof span !== 'object' || span === null || typeof span.from !== 'string' || typeof span.to !== 'string') return false
  if (span.kind === 'relay') return typeof span.holder === 'string' && typeof span.edge === 'string'
  if (span.kind === 'elicitation') return typeof span.message === 'string' && (span.mode === 'form' || span.mode === 'url')
  if (span.kind === 'sampling') return span.model === null || typeof span.model === 'string'
  return span.kind === 'remote' && typeof span.server === 'string' && typeof span.callId === 'string'
}
