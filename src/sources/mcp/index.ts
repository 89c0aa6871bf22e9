// MCP servers whose tools become skills: their connections, the skills, and what loading found.
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
export { completeImported } from './complete-imported.js'
