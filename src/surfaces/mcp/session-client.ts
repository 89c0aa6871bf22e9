import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js'
import {
  SetLevelRequestSchema,
  type CreateMessageRequestParams,
  type ElicitRequestFormParams,
  type ElicitRequestURLParams,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js'
import { LOG_LEVELS, MAX_TIMEOUT_MS, type CallerClient, type ElicitResult, type LogLevel, type SampleResult } from '../../skill/index.js'

/** What a session's client hears of skillplane's and its imported servers' log lines. */
export interface SessionLogging {
  /** Whether a line at `level` goes out: at or above the level the client set (`info` until it sets one). */
  allows(level: LogLevel): boolean
}

// Until the client says, what a person watching a session wants: calls ending, not each start.
const DEFAULT_LEVEL: LogLevel = 'info'

/** Where a session's level starts (a re-opened session's stored one), and who keeps it when the client sets one. */
export interface SessionLevel {
  level?: LogLevel | null
  onSet?: (level: LogLevel) => void
}

/** Keep the level this session's client sets with logging/setLevel (the server declares `logging`). */
export function sessionLogging(server: Server, { level: start, onSet }: SessionLevel = {}): SessionLogging {
  let level = LOG_LEVELS.indexOf(start ?? DEFAULT_LEVEL)
  server.setRequestHandler(SetLevelRequestSchema, (request) => {
    level = LOG_LEVELS.indexOf(request.params.level)
    onSet?.(request.params.level)
    return {}
  })
  return { allows: (asked) => LOG_LEVELS.indexOf(asked) >= level }
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>

/**
 * The session's client as the caller channel of the calls one request makes: questions and log
 * lines go out related to that request (on its own event stream over Streamable HTTP), and only
 * what the client declared it can answer is asked.
 */
export function sessionClient(server: Server, extra: Extra, logging: SessionLogging): CallerClient {
  const declared = server.getClientCapabilities()
  // Only the call's own deadline (its signal) bounds a question, not the SDK's default of 60 s.
  const related = { relatedRequestId: extra.requestId, timeout: MAX_TIMEOUT_MS }
  return {
    capabilities: {
      sampling: declared?.sampling !== undefined,
      elicitation: { form: declared?.elicitation?.form !== undefined, url: declared?.elicitation?.url !== undefined },
      logging: true,
    },
    elicit: (params, { signal }) =>
      server.elicitInput(params as ElicitRequestFormParams | ElicitRequestURLParams, { ...related, signal }) as Promise<ElicitResult>,
    sample: (params, { signal }) => server.createMessage(params as CreateMessageRequestParams, { ...related, signal }) as Promise<SampleResult>,
    log: (message) => {
      if (logging.allows(message.level)) extra.sendNotification({ method: 'notifications/message', params: message }).catch(() => {})
    },
    elicitationComplete: (elicitationId) => {
      extra.sendNotification({ method: 'notifications/elicitation/complete', params: { elicitationId } }).catch(() => {})
    },
  }
}
