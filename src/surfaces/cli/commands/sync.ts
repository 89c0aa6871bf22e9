import type { Command } from 'commander'

export function syncCommand(program: Command): void {
  program
    .command('sync')
    .description('make the catalog, agents and bindings in the store match the code and config')
    .option('--dry-run', 'show what would change without writing')
    .option('--prune', 'delete catalog rows whose executor is gone (and their bindings) instead of reporting them')
    .option('--force', 'sync even a config without skills over a catalog that has some (orphaning them all)')
    .option('--json', 'print the report as JSON')
    .action(async (_options: unknown, command: Command) => (await import('../actions/sync.js')).sync(command.optsWithGlobals()))
}
