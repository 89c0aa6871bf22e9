import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { Skillplane } from '../../agents/index.js'
import type { McpServerOptions } from './create-mcp-server.js'

/** A new MCP server for one caller. The MCP SDK loads with the first one: commands that serve no MCP never pay for it. */
export async function openMcpServer(plane: Skillplane, options: McpServerOptions): Promise<Server> {
  const { createMcpServer } = await import('./create-mcp-server.js')
  return createMcpServer(plane, options)
}
