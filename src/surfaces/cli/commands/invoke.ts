import type { Command } from 'commander'

export function invokeCommand(program: Command): void {
  program
    .command('invoke <key>')
    .description('run a skill in-process through the pipeline, as a local admin (audited like any call)')
    .option('--input <json>', 'the input as JSON, or @FILE to read it from a file', '{}')
    .option('--agent <agent>', 'run on behalf of this agent (its bindings apply)')
    .option('--edge <edge>', 'the edge (name or id) a host-scope skill runs on')
    .option('--conversation <id>', 'conversation id recorded on the audit row')
    .option('--approval-id <id>', 'run with this approved request (the same input only; it runs once)')
    .option('--wait [seconds]', 'if approval is needed, wait for the decision (default: the configured time)')
    .action(async (key: string, _o: unknown, command: Command) => (await import('../actions/invoke.js')).invoke(key, command.optsWithGlobals()))
}
