import type { Command } from 'commander'

export function sourcesCommand(program: Command): void {
  program
    .command('sources')
    .description('show the configured MCP servers (connected or why not) and the pack and SKILL.md folders with their findings')
    .option('--json', 'print JSON')
    .action(async (_o: unknown, command: Command) => (await import('../actions/sources.js')).sources(command.optsWithGlobals()))
}
