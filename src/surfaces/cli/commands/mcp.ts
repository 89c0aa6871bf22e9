import type { Command } from 'commander'

export function mcpCommand(program: Command): void {
  program
    .command('mcp')
    .description('serve the skills as an MCP server on stdin/stdout (for Claude Desktop and other MCP clients)')
    .option('--agent <agent>', 'act as this agent (name, alias or id): only its bound skills are listed')
    .action(async (_o: unknown, command: Command) => (await import('../actions/mcp.js')).mcp(command.optsWithGlobals()))
}
