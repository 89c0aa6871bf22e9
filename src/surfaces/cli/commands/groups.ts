import { Option, type Command } from 'commander'
import { ROLE_CHOICES } from './users.js'

export function groupsCommand(program: Command): void {
  const groups = program.command('groups').description('add and list groups, grant them roles, and manage their members')

  groups
    .command('add <name>')
    .description('add a group')
    .addOption(new Option('--role <role>', 'a role granted to every member').choices(ROLE_CHOICES))
    .option('--json', 'print JSON')
    .action(async (name: string, _o: unknown, command: Command) => (await import('../actions/groups.js')).groupsAdd(name, command.optsWithGlobals()))

  groups
    .command('list')
    .description('list groups with their roles and members')
    .option('--json', 'print JSON')
    .action(async (_o: unknown, command: Command) => (await import('../actions/groups.js')).groupsList(command.optsWithGlobals()))

  groups
    .command('set-role <name> <role>')
    .description("grant the group's members a role (viewer, operator, admin), or none")
    .action(async (name: string, role: string, _o: unknown, command: Command) =>
      (await import('../actions/groups.js')).groupsSetRole(name, role, command.optsWithGlobals()),
    )

  groups
    .command('add-member <group> <user>')
    .description('add a user to a group')
    .action(async (group: string, user: string, _o: unknown, command: Command) =>
      (await import('../actions/groups.js')).groupsAddMember(group, user, command.optsWithGlobals()),
    )

  groups
    .command('remove-member <group> <user>')
    .description('remove a user from a group')
    .action(async (group: string, user: string, _o: unknown, command: Command) =>
      (await import('../actions/groups.js')).groupsRemoveMember(group, user, command.optsWithGlobals()),
    )
}
