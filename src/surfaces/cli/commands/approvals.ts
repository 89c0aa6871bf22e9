import { type Command, Option } from 'commander'
import { APPROVAL_STATUSES, type ApprovalView } from '../../../policy/index.js'
import { withPlane, localAdmin, type GlobalOptions } from '../open-plane.js'
import { formatTable, truncate } from '../format-table.js'
import { CliError } from '../cli-error.js'
import { parsePositiveInt } from '../parse-options.js'

export function approvalsCommand(program: Command): void {
  const approvals = program.command('approvals').description('list and decide approval requests')

  approvals
    .command('list')
    .description('approval requests, newest first')
    .addOption(new Option('--status <status>', 'only this status').choices(APPROVAL_STATUSES))
    .option('--skill <key>', 'only this skill')
    .option('--agent <agent>', 'only requests made for this agent')
    .option('--limit <n>', 'rows (1-500)', parsePositiveInt, 50)
    .option('--json', 'print JSON')
    .action(async (_o: unknown, command: Command) => {
      const o = command.optsWithGlobals<
        GlobalOptions & { status?: (typeof APPROVAL_STATUSES)[number]; skill?: string; agent?: string; limit: number; json?: boolean }
      >()
      const page = await withPlane(o, (plane) =>
        plane.approvals.list({
          status: o.status,
          skill: o.skill,
          agent: o.agent && (plane.catalog.resolveAgent(o.agent) ?? o.agent),
          limit: Math.min(o.limit, 500),
        }),
      )
      if (o.json) return console.log(JSON.stringify(page, null, 2))
      if (page.items.length === 0) return console.log('no approval requests')
      console.log(
        formatTable(
          ['ID', 'SKILL', 'STATUS', 'APPROVALS', 'REQUESTER', 'AGENT', 'EXPIRES', 'REASON'],
          page.items.map((a) => [
            a.id,
            a.skill,
            a.status,
            `${a.decisions.filter((d) => d.decision === 'approve').length}/${a.approvalsRequired}${a.sopRequired ? ' +SOP' : ''}`,
            a.requester.name,
            a.agent ?? '-',
            a.expiresAt,
            truncate(a.reason, 60),
          ]),
        ),
      )
    })

  approvals
    .command('show <id>')
    .description('one request: its input, decisions and history')
    .option('--json', 'print JSON')
    .action(async (id: string, _o: unknown, command: Command) => {
      const o = command.optsWithGlobals<GlobalOptions & { json?: boolean }>()
      const found = await withPlane(o, async (plane) => {
        const approval = await plane.approvals.get(id)
        if (!approval) throw new CliError(`no approval request "${id}"`)
        const history = await plane.events.list({ subject: `approval:${id}`, limit: 100 })
        return { ...approval, history: history.items.reverse() }
      })
      if (o.json) return console.log(JSON.stringify(found, null, 2))
      printApproval(found)
      for (const e of found.history) console.log(`  ${e.createdAt}  ${e.kind}  by ${e.actor.name}${e.callId ? `  call ${e.callId}` : ''}`)
    })

  for (const decision of ['approve', 'reject'] as const) {
    const sub = approvals
      .command(`${decision} <id>`)
      .description(`${decision} a request as the local admin${decision === 'approve' ? ' (dangerous skills: cite --sop)' : ''}`)
      .option('--comment <text>', 'why')
    if (decision === 'approve') sub.option('--sop <id>', 'the signed procedure this approval follows (required for dangerous skills)')
    sub.option('--json', 'print JSON').action(async (id: string, _o: unknown, command: Command) => {
      const o = command.optsWithGlobals<GlobalOptions & { comment?: string; sop?: string; json?: boolean }>()
      const result = await withPlane(o, (plane) => plane.approvals.decide({ id, caller: localAdmin(), decision, comment: o.comment, sopId: o.sop }))
      if (!result.ok) throw new CliError(result.message)
      if (o.json) return console.log(JSON.stringify(result.approval, null, 2))
      printApproval(result.approval)
    })
  }
}

function printApproval(a: ApprovalView): void {
  console.log(`${a.id}: ${a.skill} (${a.class}) is ${a.status}`)
  console.log(`  requested by ${a.requester.name}${a.agent ? ` for agent ${a.agent}` : ''} at ${a.createdAt} (call ${a.callId}); expires ${a.expiresAt}`)
  console.log(`  reason: ${a.reason}`)
  console.log(
    `  needs ${a.approvalsRequired} approval${a.approvalsRequired === 1 ? '' : 's'} by ${a.approverRole}${a.sopRequired ? ', each citing a signed procedure' : ''}`,
  )
  console.log(`  input: ${JSON.stringify(a.input)}`)
  for (const d of a.decisions) {
    console.log(
      `  ${d.decision} by ${d.approver.name} (${d.approver.role}) at ${d.createdAt}${d.sop ? ` citing SOP ${d.sop.id}` : ''}${d.comment ? `: ${d.comment}` : ''}`,
    )
  }
  if (a.executedCallId) console.log(`  executed by call ${a.executedCallId}`)
}
