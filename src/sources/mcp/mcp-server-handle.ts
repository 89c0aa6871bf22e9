import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js'
import type { CallToolResult, Resource, ResourceTemplate } from '@modelcontextprotocol/sdk/types.js'
import type { ResolvedMcpServer } from '../../config/index.js'
import type { CallerClient, ProgressUpdate } from '../../skill/index.js'

/**
 * idle: not connected yet, and connects on its first call (a one-shot CLI command), or a per-person
 * server with no session open; needs_auth: a secret its headers or environment name is not set, or
 * an OAuth server's token is missing or refused.
 */
export type McpServerState = 'idle' | 'connecting' | 'connected' | 'down' | 'needs_auth' | 'closed'

export interface McpServerStatus {
  name: string
  transport: 'stdio' | 'http'
  /** The command line or URL (headers, environment and credentials are never shown). */
  target: string
  state: McpServerState
  /** Why it is not connected, when it is not. */
  reason: string | null
  connectedAt: string | null
  /** When the next reconnection attempt is due, while down. */
  retryAt: string | null
  /**
   * The last lines a stdio server wrote to stderr (the process that exited last, when one did).
   * Shown to admins only: it may hold anything, so it never goes into what agents see.
   */
  stderr: string | null
}

/** One configured server as its skills and the source see it: one connection, or one session per person. */
export interface McpServerHandle {
  readonly server: ResolvedMcpServer
  status(): McpServerStatus
  /** Why a call can't go to this server now, or null when it can. */
  unavailable(): string | null
  /** The secrets the server waits for (named in its config, not set). */
  missingSecrets(): string[]
  /** Secret values and tokens the (person's) connection was made with: scrubbed from what the server answers. */
  secretValues(subject: string | null): string[]
  connect(): Promise<void>
  refresh(): Promise<void>
  secretsChanged(): Promise<void>
  close(): Promise<void>
  callTool(name: string, args: unknown, call: ToolCall): Promise<CallToolResult>
  /** Any other request a call makes of the server (resources/read, prompts/get, ...), handled like a tool call. */
  request<T>(send: (client: Client, options: RequestOptions) => Promise<T>, call: ToolCall): Promise<T>
  /**
   * Hear `notifications/resources/updated` for `uri` (of the person's session, for a per-person
   * server): the first listener subscribes upstream, the last one gone unsubscribes. Resolves
   * with the function that stops listening once the server took the subscription.
   */
  subscribe(uri: string, call: Pick<ToolCall, 'subject' | 'signal'>, listener: (uri: string) => void): Promise<() => void>
}

/** A server's resources as it listed them (all pages), or null for a server that declares none. */
export interface ListedResources {
  resources: Resource[]
  templates: ResourceTemplate[]
  /** Whether it takes resources/subscribe. */
  subscribe: boolean
  /** Entries that were malformed (skipped), or why listing failed. */
  problems: string[]
}

/** One tools/call as a skill's call makes it. */
export interface ToolCall {
  signal: AbortSignal
  onProgress?: (update: ProgressUpdate) => void
  /** The person the call acts for (a per-person server's session), null for none. */
  subject: string | null
  /** Sent as the request's `_meta`: the calling call and its trace (`callMeta`). */
  meta: Record<string, string>
  /**
   * The call's `ctx.client`: what the server asks (elicitation, sampling) or logs while this request
   * runs reaches that caller. Without one, the server is told its client can't answer.
   */
  client?: CallerClient | null
  /**
   * Who made the call (`callerKey`): a message the server sends outside any request's stream goes to
   * the one call in flight only while no other caller's call ended unanswered lately. Unnamed: no one else's.
   */
  caller?: string
}
