// skillplane as an MCP server: per-caller servers, and the sessions of /mcp over Streamable HTTP.
export { openMcpServer } from './open-mcp-server.js'
export { McpHttpSessions, type SentSignal } from './mcp-http-sessions.js'
