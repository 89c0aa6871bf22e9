import { type Command, Option } from 'commander'
// The leaf modules, not policy's face: declaring a command must not load what running it needs.
import { APPROVAL_STATUSES } from '../../../policy/approval-status.js'
import { GRANT_MINUTES, GRANT_SCOPES, GRANT_STATES } from '../../../policy/grant-scope.js'
import { parsePositiveInt } from '../parse-options.js'

export function approvalsCommand(program: Command): void {
  const approvals = program.command('approvals').description('list and decide approval requests; list and revoke conversation grants')

  approvals
    .command('list')
    .description('approval requests, newest first')
    .addOption(new Option('--status <status>', 'only this status').choices(APPROVAL_STATUSES))
    .option('--skill <key>', 'only this skill')
    .option('--agent <agent>', 'only requests made for this agent')
    .option('--limit <n>', 'rows (1-500)', parsePositiveInt, 50)
    .option('--json', 'print JSON')
    .action(async (_o: unknown, command: Command) => (await import('../actions/approvals.js')).approvalsList(command.optsWithGlobals()))

  approvals
    .command('show <id>')
    .description('one request: its input, decisions and history')
    .option('--json', 'print JSON')
    .action(async (id: string, _o: unknown, command: Command) => (await import('../actions/approvals.js')).approvalsShow(id, command.optsWithGlobals()))

  for (const decision of ['approve', 'reject'] as const) {
    const sub = approvals
      .command(`${decision} <id>`)
      .description(`${decision} a request as the local admin${decision === 'approve' ? ' (dangerous skills: cite --sop)' : ''}`)
      .option('--comment <text>', 'why')
    if (decision === 'approve') {
      sub
        .option('--sop <id>', 'the signed procedure this approval follows (required for dangerous skills)')
        .addOption(
          new Option('--scope <scope>', 'this call only, also the rest of its conversation, or always for its agent (mutating skills)')
            .choices(GRANT_SCOPES)
            .default('once'),
        )
        .option('--minutes <n>', `how long a conversation grant lives (1-${GRANT_MINUTES.max}, default ${GRANT_MINUTES.default})`, parsePositiveInt)
    }
    sub
      .option('--json', 'print JSON')
      .action(async (id: string, _o: unknown, command: Command) =>
        (await import('../actions/approvals.js')).approvalsDecide(decision, id, command.optsWithGlobals()),
      )
  }

  approvals
    .command('grants')
    .description('conversation grants, newest first')
    .addOption(new Option('--status <status>', 'only grants in this state').choices(GRANT_STATES))
    .option('--skill <key>', 'only this skill')
    .option('--agent <agent>', 'only grants for this agent')
    .option('--limit <n>', 'rows (1-500)', parsePositiveInt, 50)
    .option('--json', 'print JSON')
    .action(async (_o: unknown, command: Command) => (await import('../actions/approvals.js')).grantsList(command.optsWithGlobals()))

  approvals
    .command('revoke-grant <id>')
    .description('end a conversation grant now, as the local admin')
    .option('--json', 'print JSON')
    .action(async (id: string, _o: unknown, command: Command) => (await import('../actions/approvals.js')).grantsRevoke(id, command.optsWithGlobals()))
}
