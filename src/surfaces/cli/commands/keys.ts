import { Option, type Command } from 'commander'
import { ROLE_CHOICES } from './users.js'

export function keysCommand(program: Command): void {
  const keys = program.command('keys').description('create, list and revoke API keys')

  keys
    .command('create')
    .description('create an API key; the key is printed once and stored only as a hash')
    .requiredOption('--name <name>', 'what the key is for (a laptop, a CI job); not unique')
    .addOption(new Option('--role <role>', "viewer, operator or admin; without it the key follows its user's roles").choices(ROLE_CHOICES))
    .option('--user <user>', "the user it belongs to (name or id); default: the user of the key's name, made if missing")
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
