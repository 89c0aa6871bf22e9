import type { Command } from 'commander'

const collect = (value: string, previous: string[] = []) => [...previous, value]
const WHOM_HELP = '\nname whose connection: --user NAME (a person) or --service (the service account skills with account "service" use)'

/** `connections`: people's (and the service account's) OAuth connections, as the local admin. */
export function connectionsCommand(program: Command): void {
  const group = program
    .command('connections')
    .description("list, make and disconnect OAuth connections: people's and the service account's (tokens never shown)")
  group
    .command('list')
    .description("list the configured OAuth providers and every connection (or one person's): state, scopes, expiry, who connected it")
    .option('--user <user>', "only this person's connections")
    .option('--json', 'print JSON')
    .action(async (_o: unknown, command: Command) => (await import('../actions/connections.js')).connectionsList(command.optsWithGlobals()))
  group
    .command('connect <provider>')
    .description("print a connect link: send it to the person, or open it yourself for the service account's connection")
    .option('--user <user>', "connect this person's account")
    .option('--service', "connect the service account's")
    .option('--as <admin>', 'with --service: the admin who opens the link (with a console sign-in, only their signed-in browser can use it)')
    .option('--scope <scope>', "a scope to ask for, besides those the connection has (repeatable); without it, the provider's default scopes", collect)
    .option('--return-to <path>', 'the console path the browser returns to afterwards (default /connections)')
    .option('--json', 'print JSON')
    .addHelpText('after', WHOM_HELP)
    .action(async (provider: string, _o: unknown, command: Command) =>
      (await import('../actions/connections.js')).connectionsConnect(provider, command.optsWithGlobals()),
    )
  group
    .command('disconnect <provider>')
    .description('disconnect: delete the tokens, and revoke them at the provider where it offers that')
    .option('--user <user>', "this person's connection")
    .option('--service', "the service account's connection")
    .option('--json', 'print JSON')
    .addHelpText('after', WHOM_HELP)
    .action(async (provider: string, _o: unknown, command: Command) =>
      (await import('../actions/connections.js')).connectionsDisconnect(provider, command.optsWithGlobals()),
    )
}
