import { Option, type Command } from 'commander'

export function keysCommand(program: Command): void {
  const keys = program.command('keys').description('create, list and revoke API keys')

  keys
    .command('create')
    .description('create an API key; the key is printed once and stored only as a hash')
    .requiredOption('--name <name>', 'who or what the key is for')
    .addOption(new Option('--role <role>', 'viewer, operator or admin (agent keys: use --agent)').choices(['viewer', 'operator', 'admin']))
    .option('--agent <agent>', 'make an agent key acting for this agent (name, alias or id)')
    .option('--json', 'print JSON')
    .action(async (_o: unknown, command: Command) => (await import('../actions/keys.js')).keysCreate(command.optsWithGlobals()))

  keys
    .command('list')
    .description('list API keys (never the keys themselves)')
    .option('--json', 'print JSON')
    .action(async (_o: unknown, command: Command) => (await import('../actions/keys.js')).keysList(command.optsWithGlobals()))

  keys
    .command('revoke <idOrName>')
    .description('revoke a key by id or name')
    .action(async (idOrName: string, _o: unknown, command: Command) => (await import('../actions/keys.js')).keysRevoke(idOrName, command.optsWithGlobals()))
}
