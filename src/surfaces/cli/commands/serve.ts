import type { Command } from 'commander'
import { parsePort } from '../parse-options.js'

export function serveCommand(program: Command): void {
  program
    .command('serve')
    .description('run the control plane: sync the catalog, then serve the HTTP API')
    .option('--port <port>', 'TCP port (0 picks a free one)', parsePort, 7420)
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--edge <name>', 'also run this host as an edge of that name: a child process enrolled and connected through the tunnel')
    .action(async (_options: unknown, command: Command) => (await import('../actions/serve.js')).serve(command.optsWithGlobals()))
}
