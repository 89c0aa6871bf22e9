import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { ResolvedMcpServer } from '../../config/index.js'
import type { ProgressUpdate } from '../../skill/index.js'
import type { McpServerStatus } from './mcp-connection.js'

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
  /** `subject`: the person the call acts for (a per-person server's session), null for none. */
  callTool(
    name: string,
    args: unknown,
    signal: AbortSignal,
    onProgress: ((update: ProgressUpdate) => void) | undefined,
    subject: string | null,
  ): Promise<CallToolResult>
}
