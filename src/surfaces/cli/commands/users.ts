import { Option, type Command } from 'commander'
import { ROLES } from '../../../abilities/index.js'

export const ROLE_CHOICES: string[] = [...ROLES]

export function usersCommand(program: Command): void {
  const users = program.command('users').description('add, list, disable and enable users, the people behind keys; grant them roles')

  users
    .command('add <name>')
    .description('add a user (keys are then made for them with keys create --user NAME)')
    .addOption(new Option('--role <role>', 'a role granted to the user itself').choices(ROLE_CHOICES))
    .option('--display-name <text>', 'the name to show in audit rows and approvals')
    .option('--json', 'print JSON')
    .action(async (name: string, _o: unknown, command: Command) => (await import('../actions/users.js')).usersAdd(name, command.optsWithGlobals()))

  users
    .command('list')
    .description('list users with their roles, groups and state')
    .option('--json', 'print JSON')
    .action(async (_o: unknown, command: Command) => (await import('../actions/users.js')).usersList(command.optsWithGlobals()))

  users
    .command('disable <name>')
    .description('disable a user: every key of theirs stops working at once')
    .action(async (name: string, _o: unknown, command: Command) => (await import('../actions/users.js')).usersDisable(name, command.optsWithGlobals()))

  users
    .command('enable <name>')
    .description('enable a disabled user: their unrevoked keys work again')
    .action(async (name: string, _o: unknown, command: Command) => (await import('../actions/users.js')).usersEnable(name, command.optsWithGlobals()))

  users
    .command('set-role <name> <role>')
    .description('grant the user a role of its own (viewer, operator, admin), or none')
    .action(async (name: string, role: string, _o: unknown, command: Command) =>
      (await import('../actions/users.js')).usersSetRole(name, role, command.optsWithGlobals()),
    )
}
