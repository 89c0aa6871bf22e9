// MCP servers whose tools become skills: their connections, the skills, and what loading found.
export { callerKey } from './caller-key.js'
export {
  McpSource,
  type McpServerReport,
  type McpSourceOptions,
  type McpResourceSet,
  type McpResourceSubscription,
  type McpPersonListChange,
  type ImportedPrompts,
  type McpCompletion,
  type McpCompletionResult,
} from './mcp-source.js'
export { uriTooLong } from './uri-limits.js'
