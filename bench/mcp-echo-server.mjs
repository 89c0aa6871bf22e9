#!/usr/bin/env node
// The MCP benchmark's server (official SDK, stdio): one read-only tool that echoes its input.
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'

const server = new Server({ name: 'bench', version: '1.0.0' }, { capabilities: { tools: {} } })
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    {
      name: 'echo',
      description: 'Echo the input.',
      inputSchema: { type: 'object', properties: { n: { type: 'integer' }, text: { type: 'string' } }, required: ['n'] },
      annotations: { readOnlyHint: true },
    },
  ],
}))
server.setRequestHandler(CallToolRequestSchema, async (request) => ({
  content: [{ type: 'text', text: JSON.stringify(request.params.arguments) }],
}))
await server.connect(new StdioServerTransport())
