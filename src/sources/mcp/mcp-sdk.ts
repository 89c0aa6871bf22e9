import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js'
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import type { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type {
  CreateMessageRequestSchema,
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  ErrorCode,
  LoggingMessageNotificationSchema,
  McpError,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js'

/** The parts of the MCP SDK's client side a connection uses. */
export interface McpSdk {
  Client: typeof Client
  StdioClientTransport: typeof StdioClientTransport
  StreamableHTTPClientTransport: typeof StreamableHTTPClientTransport
  StreamableHTTPError: typeof StreamableHTTPError
  McpError: typeof McpError
  ErrorCode: typeof ErrorCode
  ResourceUpdatedNotificationSchema: typeof ResourceUpdatedNotificationSchema
  ElicitRequestSchema: typeof ElicitRequestSchema
  CreateMessageRequestSchema: typeof CreateMessageRequestSchema
  LoggingMessageNotificationSchema: typeof LoggingMessageNotificationSchema
  ElicitationCompleteNotificationSchema: typeof ElicitationCompleteNotificationSchema
  UriTemplate: typeof UriTemplate
}

let loading: Promise<McpSdk> | undefined
let loaded: McpSdk | undefined

/** The SDK, loaded by the first connection: commands that connect no server never pay for it. */
export function loadMcpSdk(): Promise<McpSdk> {
  loading ??= Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('@modelcontextprotocol/sdk/shared/uriTemplate.js'),
  ]).then(([client, stdio, http, types, uriTemplate]) => {
    loaded = {
      Client: client.Client,
      StdioClientTransport: stdio.StdioClientTransport,
      StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
      StreamableHTTPError: http.StreamableHTTPError,
      McpError: types.McpError,
      UriTemplate: uriTemplate.UriTemplate,
      ErrorCode: types.ErrorCode,
      ResourceUpdatedNotificationSchema: types.ResourceUpdatedNotificationSchema,
      ElicitRequestSchema: types.ElicitRequestSchema,
      CreateMessageRequestSchema: types.CreateMessageRequestSchema,
      LoggingMessageNotificationSchema: types.LoggingMessageNotificationSchema,
      ElicitationCompleteNotificationSchema: types.ElicitationCompleteNotificationSchema,
    }
    return loaded
  })
  // A failed load (EMFILE, say) is tried again by the next connection, not remembered.
  loading.catch(() => (loading = undefined))
  return loading
}

/** The SDK if a connection loaded it; before that, no error can be one of its own. */
export function loadedMcpSdk(): McpSdk | undefined {
  return loaded
}
