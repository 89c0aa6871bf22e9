// Plain JSON shapes, structurally the MCP SDK's (elicitation/create, sampling/createMessage,
// notifications/message), so a surface hands them to its SDK and an imported server's pass through.

/** A primitive field of an elicitation form: MCP's restricted JSON Schema (no nesting). */
export type ElicitField = Record<string, unknown> & { type: 'string' | 'number' | 'integer' | 'boolean' | 'array' }

/** MCP `elicitation/create` params: a form (`mode` absent or `form`) or a link the person opens (`url`). */
export type ElicitParams =
  | {
      mode?: 'form'
      message: string
      requestedSchema: { type: 'object'; properties: Record<string, ElicitField>; required?: string[] }
      _meta?: Record<string, unknown>
    }
  | { mode: 'url'; message: string; elicitationId: string; url: string; _meta?: Record<string, unknown> }

/** MCP `elicitation/create` result: `content` only with `accept` in form mode. */
export interface ElicitResult {
  action: 'accept' | 'decline' | 'cancel'
  content?: Record<string, string | number | boolean | string[]>
  _meta?: Record<string, unknown>
}

/** One content block of a sampling message or result (text, image, audio; tool blocks pass through as they are). */
export type SamplingContent =
  | { type: 'text'; text: string; _meta?: Record<string, unknown> }
  | { type: 'image' | 'audio'; data: string; mimeType: string; _meta?: Record<string, unknown> }
  | (Record<string, unknown> & { type: 'tool_use' | 'tool_result' })

export interface SamplingMessage {
  role: 'user' | 'assistant'
  content: SamplingContent | SamplingContent[]
  _meta?: Record<string, unknown>
}

/** MCP `sampling/createMessage` params. */
export interface SampleParams {
  messages: SamplingMessage[]
  maxTokens: number
  systemPrompt?: string
  modelPreferences?: {
    hints?: { name?: string }[]
    costPriority?: number
    speedPriority?: number
    intelligencePriority?: number
  }
  includeContext?: 'none' | 'thisServer' | 'allServers'
  temperature?: number
  stopSequences?: string[]
  metadata?: Record<string, unknown>
  tools?: Record<string, unknown>[]
  toolChoice?: { mode?: 'auto' | 'required' | 'none' }
  _meta?: Record<string, unknown>
}

/** MCP `sampling/createMessage` result. */
export interface SampleResult {
  role: 'user' | 'assistant'
  content: SamplingContent | SamplingContent[]
  model: string
  stopReason?: string
  _meta?: Record<string, unknown>
}

/** MCP's log levels, least severe first. */
export type LogLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency'

/** MCP `notifications/message` params. */
export interface LogMessage {
  level: LogLevel
  logger?: string
  data: unknown
}

/** How an elicitation is asked: abandoned when `signal` aborts. */
export interface ElicitOptions {
  signal: AbortSignal
  /**
   * An accepted answer's content as the call's own record keeps it (redacted by the requested
   * schema, the call's secrets scrubbed): what a channel that stores or shows answers keeps instead.
   */
  redact?: (content: Record<string, unknown>) => Record<string, unknown>
  /** When the call's deadline ends it (ISO time): a channel that waits for a person waits no longer. */
  deadline?: string
}

/**
 * How a call reaches whoever made it (an MCP session, an agent run): the surface that makes a call
 * says how (`InvokeOptions.client`), and a skill uses it as `ctx.client`.
 */
export interface CallerClient {
  /** What the caller's client can answer (an MCP session: what it declared; an agent run: its own). */
  readonly capabilities: { sampling: boolean; elicitation: { form: boolean; url: boolean }; logging: boolean }
  /** MCP elicitation/create params → result ({ action: 'accept'|'decline'|'cancel', content? }). */
  elicit(params: ElicitParams, options: ElicitOptions): Promise<ElicitResult>
  /** MCP sampling/createMessage params → result ({ role, content, model, stopReason? }). */
  sample(params: SampleParams, options: { signal: AbortSignal }): Promise<SampleResult>
  /** MCP notifications/message params ({ level, logger?, data }); the channel drops what is below the client's level. */
  log(message: LogMessage): void
  /**
   * A URL-mode elicitation this channel sent (by its `elicitationId`) is done: MCP's
   * `notifications/elicitation/complete`. Optional: a channel without URL mode has nothing to say.
   */
  elicitationComplete?(elicitationId: string): void
}

/** MCP's log levels in order of severity: a level lets through itself and those after it. */
export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']
