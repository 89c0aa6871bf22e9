import type { Command } from 'commander'

const OWNER_HELP = 'without --agent or --user the value is global; a user value wins over an agent value, which wins over the global one'

/** `secrets` and `settings`: the values skills are connected with. */
export function secretsCommand(program: Command): void {
  for (const kind of ['secret', 'setting'] as const) {
    const group = program
      .command(`${kind}s`)
      .description(
        kind === 'secret'
          ? 'set, list and delete the secrets skills declare (encrypted at rest; values never shown)'
          : 'set, list and delete the settings skills declare (plain values such as an organisation name)',
      )
    const set = group
      .command(kind === 'secret' ? 'set <name>' : 'set <name> [value]')
      .description(
        kind === 'secret'
          ? 'set a secret; the value is read from stdin (piped) or a hidden prompt, never from the command line'
          : 'set a setting; without VALUE it is read from stdin or a prompt',
      )
      .option('--agent <agent>', "the agent's own value (name, alias or id)")
      .option('--user <user>', "a user's own value (the name of their API key)")
      .option('--json', 'print JSON')
      .addHelpText('after', `\n${OWNER_HELP}`)
    set.action(async (name: string, ...rest: unknown[]) => {
      const command = rest.at(-1) as Command
      const value = kind === 'setting' && typeof rest[0] === 'string' ? rest[0] : undefined
      await (await import('../actions/secrets.js')).valueSet(kind, name, value, command.optsWithGlobals())
    })
    group
      .command('list')
      .description(kind === 'secret' ? 'list secrets: names, owners, versions, when set (never values)' : 'list settings with their values')
      .option('--json', 'print JSON')
      .action(async (_o: unknown, command: Command) => (await import('../actions/secrets.js')).valueList(kind, command.optsWithGlobals()))
    group
      .command('delete <name>')
      .description(`delete one owner's ${kind}`)
      .option('--agent <agent>', "the agent's own value")
      .option('--user <user>', "a user's own value")
      .action(async (name: string, _o: unknown, command: Command) => (await import('../actions/secrets.js')).valueDelete(kind, name, command.optsWithGlobals()))
    if (kind === 'secret')
      group
        .command('rotate-key')
        .description('re-seal every secret and setting under a new secrets key in one transaction, and write the new key file (stop every other manager first)')
        .option('--json', 'print JSON')
        .action(async (_o: unknown, command: Command) => (await import('../actions/secrets.js')).rotateKey(command.optsWithGlobals()))
  }
}
