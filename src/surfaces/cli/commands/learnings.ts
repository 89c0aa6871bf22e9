import type { Command } from 'commander'

/** `learnings`: what skills learned, and an admin's verdict on one. */
export function learningsCommand(program: Command): void {
  const group = program.command('learnings').description('list the learnings skills left (ctx.learn), and verify or disprove one')
  group
    .command('list')
    .description('list learnings, newest first, with their importance now')
    .option('--status <status>', 'active or deprecated')
    .option('--category <category>', 'discovery or pattern')
    .option('--agent <agent>', 'only those made for this agent (name, alias or id)')
    .option('--skill <key>', 'only those this skill made')
    .option('--limit <n>', 'most learnings (1–1000)', '100')
    .option('--json', 'print JSON')
    .action(async (_o: unknown, command: Command) => (await import('../actions/learnings.js')).learningsList(command.optsWithGlobals()))
  for (const action of ['verify', 'disprove'] as const) {
    group
      .command(`${action} <id>`)
      .description(
        action === 'verify' ? 'vouch for a learning: importance +0.15, active again if deprecated' : 'refute a learning: importance 0.05, no longer recalled',
      )
      .option('--json', 'print JSON')
      .action(async (id: string, _o: unknown, command: Command) =>
        (await import('../actions/learnings.js')).learningJudge(action, id, command.optsWithGlobals()),
      )
  }
}
