import { type Command, Option } from 'commander'
import { CliError } from '../cli-error.js'
import { parsePositiveInt } from '../parse-options.js'
import { RUN_STATUSES } from '../../../agents/run-status.js'

export function runCommand(program: Command): void {
  program
    .command('run')
    .description('run an agent on a prompt with its model and bound skills (exit 0 completed, 1 failed, 2 waiting for approval or for a connection)')
    .requiredOption('--agent <agent>', 'the agent (name, alias or id)')
    .argument('<prompt>', 'what to ask it')
    .option('--json', 'print the run as JSON')
    .action(async (prompt: string, _o: unknown, command: Command) => (await import('../actions/run.js')).run(prompt, command.optsWithGlobals()))

  const runs = program.command('runs').description('list and show agent runs')
  runs
    .command('list')
    .description('runs, newest first')
    .option('--agent <agent>', 'only this agent')
    .addOption(new Option('--status <status>', 'only this status').choices(RUN_STATUSES))
    .option('--limit <n>', 'rows (1-500)', parsePositiveInt, 50)
    .option('--json', 'print JSON')
    .action(async (_o: unknown, command: Command) => (await import('../actions/run.js')).runsList(command.optsWithGlobals()))
  runs
    .command('show <id>')
    .description('one run with its steps, each tool call with its audit call id')
    .option('--json', 'print JSON')
    .action(async (id: string, _o: unknown, command: Command) => (await import('../actions/run.js')).runsShow(id, command.optsWithGlobals()))

  program
    .command('test-run')
    .description('run an agent headless with an expectation and in-memory config changes; print a verdict (exit 1 on failed or incomplete)')
    .requiredOption('--agent <agent>', 'the agent (name, alias or id)')
    .requiredOption('--input <text>', 'what to ask it')
    .option('--expect-tool <key>', 'the terminal tool that should run and succeed')
    .option('--set <path=value>', 'change a setting for this run only (repeatable): systemPrompt, maxSteps, model.model, ...', collectSet, {})
    .action(async (_o: unknown, command: Command) => (await import('../actions/run.js')).testRun(command.optsWithGlobals()))
}

function collectSet(raw: string, previous: Record<string, string>): Record<string, string> {
  const at = raw.indexOf('=')
  if (at <= 0) throw new CliError(`--set takes path=value, got "${raw}"`)
  return { ...previous, [raw.slice(0, at)]: raw.slice(at + 1) }
}
