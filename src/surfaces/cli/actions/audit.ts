import { parseAuditQuery } from '../../../audit/index.js'
import { withStore, type GlobalOptions } from '../open-plane.js'
import { formatTable, truncate } from '../format-table.js'
import { CliError } from '../cli-error.js'

export async function audit(o: GlobalOptions & Record<string, string | boolean | undefined>): Promise<void> {
  const parsed = parseAuditQuery({
    skill: o.skill,
    status: o.status,
    agent: o.agent,
    caller: o.caller,
    edge: o.edge,
    parentCallId: o.parent,
    traceId: o.traceId,
    conversationId: o.conversation,
    q: o.search,
    from: o.from,
    to: o.to,
    limit: o.limit,
    cursor: o.cursor,
  })
  if (!parsed.ok) throw new CliError(`invalid audit filter: ${parsed.message}`)
  await withStore(o as GlobalOptions, async (plane) => {
    const query = parsed.query
    if (query.agent) query.agent = plane.agents.resolve(query.agent) ?? query.agent
    const page = await plane.audit.query(query)
    const { items } = page
    if (o.json) return console.log(JSON.stringify(page, null, 2))
    if (items.length === 0) return console.log('no calls')
    console.log(
      formatTable(
        ['STARTED', 'CALL', 'SKILL', 'STATUS', 'CALLER', 'AGENT', 'MS', 'ERROR'],
        items.map((e) => [
          e.startedAt,
          e.callId,
          e.skill,
          e.status,
          e.caller.name,
          e.agent ?? '-',
          e.durationMs === null ? '-' : e.durationMs.toFixed(1),
          e.error ? truncate(`${e.error.code}: ${e.error.message}`, 70) : '',
        ]),
      ),
    )
    if (page.nextCursor) console.log(`more: --cursor ${page.nextCursor}`)
  })
}
