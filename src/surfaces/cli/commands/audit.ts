import type { Command } from 'commander'

export function auditCommand(program: Command): void {
  const audit = program
    .command('audit')
    .description('list audited calls, newest first')
    .option('--skill <key>', 'only this skill')
    .option('--status <status>', 'running, ok, error, denied, timeout, interrupted or approval_required')
    .option('--agent <agent>', 'only calls made for this agent')
    .option('--caller <caller>', 'only this caller (key id or name)')
    .option('--edge <edge>', 'only calls that ran on this edge (id or name)')
    .option('--parent <callId>', 'only calls made by this call through ctx.invoke')
    .option('--trace-id <id>', 'only the calls of this OpenTelemetry trace, oldest first')
    .option('--conversation <id>', 'only the calls of this conversation (an agent run is run:<id>)')
    .option('-q, --search <text>', 'only calls whose skill, caller, agent or error message has every word (each the start of a word)')
    .option('--from <time>', 'started at or after (ISO-8601)')
    .option('--to <time>', 'started before (ISO-8601)')
    .option('--limit <n>', 'rows per page (1-500)', '50')
    .option('--cursor <callId>', 'continue after this call id (from the previous page)')
    .option('--json', 'print JSON ({ items, nextCursor })')
    .action(async (_o: unknown, command: Command) => (await import('../actions/audit.js')).audit(command.optsWithGlobals()))
  audit
    .command('export')
    .description('write audited calls as JSON lines (the shape of GET /api/audit items) or CSV, oldest first')
    .option('--format <format>', 'jsonl or csv', 'jsonl')
    .option('--since <time>', 'started at or after (ISO-8601)')
    .option('--until <time>', 'started before (ISO-8601)')
    .option('--out <file>', 'write to this new file instead of stdout')
    .action(async (_o: unknown, command: Command) => (await import('../actions/audit-export.js')).auditExport(command.optsWithGlobals()))
}
