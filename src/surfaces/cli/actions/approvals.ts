import type { ApprovalStatus, ApprovalView, GrantScope, GrantState, GrantView } from '../../../policy/index.js'
import { withStore, localAdmin, type GlobalOptions } from '../open-plane.js'
import { formatTable, truncate } from '../format-table.js'
import { CliError } from '../cli-error.js'

export async function approvalsList(
  o: GlobalOptions & { status?: ApprovalStatus; skill?: string; agent?: string; limit: number; json?: boolean },
): Promise<void> {
  const page = await withStore(o, (plane) =>
    plane.approvals.list({
      status: o.status,
      skill: o.skill,
      agent: o.agent && (plane.agents.resolve(o.agent) ?? o.agent),
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
}

export async function approvalsShow(id: string, o: GlobalOptions & { json?: boolean }): Promise<void> {
  const found = await withStore(o, async (plane) => {
    const approval = await plane.approvals.get(id)
    if (!approval) throw new CliError(`no approval request "${id}"`)
    const history = await plane.audit.events.list({ subject: `approval:${id}`, limit: 100 })
    return { ...approval, history: history.items.reverse() }
  })
  if (o.json) return console.log(JSON.stringify(found, null, 2))
  printApproval(found)
  for (const e of found.history) console.log(`  ${e.createdAt}  ${e.kind}  by ${e.actor.name}${e.callId ? `  call ${e.callId}` : ''}`)
}

export async function approvalsDecide(
  decision: 'approve' | 'reject',
  id: string,
  o: GlobalOptions & { comment?: string; sop?: string; scope?: GrantScope; minutes?: number; json?: boolean },
): Promise<void> {
  const result = await withStore(o, (plane) =>
    plane.approvals.decide({ id, caller: localAdmin(), decision, comment: o.comment, sopId: o.sop, scope: o.scope, minutes: o.minutes }),
  )
  if (!result.ok) throw new CliError(result.message)
  const granted = result.granted && (result.granted.scope === 'always' ? { policy: result.granted.policy } : { grant: result.granted.grant })
  if (o.json) return console.log(JSON.stringify({ ...result.approval, ...granted, ...(result.grantProblem && { grantProblem: result.grantProblem }) }, null, 2))
  printApproval(result.approval)
  if (granted?.grant) printGrant(granted.grant, '  ')
  if (result.grantProblem) console.error(`warning: ${result.grantProblem}`)
  if (granted?.policy) console.log(`  always: policy ${granted.policy.id} lets agent ${granted.policy.subject} run ${granted.policy.skill} without approval`)
}

export async function grantsList(o: GlobalOptions & { status?: GrantState; skill?: string; agent?: string; limit: number; json?: boolean }): Promise<void> {
  const page = await withStore(o, (plane) =>
    plane.approvals.grants.list({
      status: o.status,
      skill: o.skill,
      agent: o.agent && (plane.agents.resolve(o.agent) ?? o.agent),
      limit: Math.min(o.limit, 500),
    }),
  )
  if (o.json) return console.log(JSON.stringify(page, null, 2))
  if (page.items.length === 0) return console.log('no conversation grants')
  console.log(
    formatTable(
      ['ID', 'SKILL', 'STATUS', 'AGENT', 'CONVERSATION', 'REQUESTER', 'BY', 'EXPIRES'],
      page.items.map((g) => [g.id, g.skill, g.status, g.agent ?? '-', truncate(g.conversationId, 40), g.requester.name, g.grantedBy.name, g.expiresAt]),
    ),
  )
}

export async function grantsRevoke(id: string, o: GlobalOptions & { json?: boolean }): Promise<void> {
  const result = await withStore(o, (plane) => plane.approvals.grants.revoke(id, localAdmin()))
  if (!result.ok) throw new CliError(result.message)
  if (o.json) return console.log(JSON.stringify(result.grant, null, 2))
  printGrant(result.grant)
}

function printGrant(g: GrantView, indent = ''): void {
  const until = g.status === 'revoked' ? `revoked at ${g.revokedAt} by ${g.revokedBy?.name}` : `${g.status} until ${g.expiresAt}`
  console.log(
    `${indent}grant ${g.id}: ${g.requester.name}'s calls of ${g.skill}${g.agent ? ` for agent ${g.agent}` : ''} in conversation ${g.conversationId} run without approval, ${until}`,
  )
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
