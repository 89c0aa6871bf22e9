import type { Command } from 'commander'
import { parseAuditQuery } from '../../../audit/index.js'
import { withPlane, type GlobalOptions } from '../open-plane.js'
import { formatTable, truncate } from '../format-table.js'
import { CliError } from '../cli-error.js'

export function auditCommand(program: Command): void {
  program
    .command('audit')
    .description('list audited calls, newest first')
    .option('--skill <key>', 'only this skill')
    .option('--status <status>', 'running, ok, error, denied, timeout, interrupted or approval_required')
    .option('--agent <agent>', 'only calls made for this agent')
    .option('--caller <caller>', 'only this caller (key id or name)')
    .option('--parent <callId>', 'only calls made by this call through ctx.invoke')
    .option('--trace-id <id>', 'only the calls of this OpenTelemetry trace, oldest first')
    .option('--from <time>', 'started at or after (ISO-8601)')
    .option('--to <time>', 'started before (ISO-8601)')
    .option('--limit <n>', 'rows per page (1-500)', '50')
    .option('--cursor <callId>', 'continue after this call id (from the previous page)')
    .option('--json', 'print JSON ({ items, nextCursor })')
    .action(async (_o: unknown, command: Command) => {
      const o = command.optsWithGlobals<GlobalOptions & Record<string, string | boolean | undefined>>()
      const parsed = parseAuditQuery({
        skill: o.skill,
        status: o.status,
        agent: o.agent,
        caller: o.caller,
        parentCallId: o.parent,
        traceId: o.traceId,
        from: o.from,
        to: o.to,
        limit: o.limit,
        cursor: o.cursor,
      })
      if (!parsed.ok) throw new CliError(`invalid audit filter: ${parsed.message}`)
      await withPlane(o as GlobalOptions, async (plane) => {
        const query = parsed.query
        if (query.agent) query.agent = plane.catalog.resolveAgent(query.agent) ?? query.agent
        const page = await plane.audit.query(query)
        const items = page.items
        if (o.json) return console.log(JSON.stringify({ items, nextCursor: page.nextCursor }, null, 2))
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
    })
}
