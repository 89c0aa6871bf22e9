import { Option, type Command } from 'commander'
// The leaf module, not policy's face: declaring a command must not load what running it needs.
import { POLICY_DECISIONS, POLICY_LEVELS } from '../../../policy/decide-policy.js'

export function policiesCommand(program: Command): void {
  const policies = program.command('policies').description('list, set and clear ALWAYS / ASK / DENY overrides')

  policies
    .command('list')
    .description('every stored override')
    .option('--json', 'print JSON')
    .action(async (_o: unknown, command: Command) => (await import('../actions/policies.js')).policiesList(command.optsWithGlobals()))

  policies
    .command('set')
    .description('set the override for a skill (or "*") at one level; replaces an existing one')
    .requiredOption('--skill <key>', 'a skill key, or "*" for every skill')
    .addOption(new Option('--level <level>', 'who it applies to').choices(POLICY_LEVELS).makeOptionMandatory())
    .option('--subject <subject>', 'agent (name, alias or id), role, or key id/name; not for global')
    .addOption(new Option('--decision <decision>', 'the decision').choices(POLICY_DECISIONS).makeOptionMandatory())
    .option('--json', 'print JSON')
    .action(async (_o: unknown, command: Command) => (await import('../actions/policies.js')).policiesSet(command.optsWithGlobals()))

  policies
    .command('clear <id>')
    .description('remove an override')
    .action(async (id: string, _o: unknown, command: Command) => (await import('../actions/policies.js')).policiesClear(id, command.optsWithGlobals()))
}
