import { type Command, Option } from 'commander'
import { withPlane, localAdmin, type GlobalOptions } from '../open-plane.js'
import { formatTable, truncate } from '../format-table.js'
import { CliError } from '../cli-error.js'
import { parsePositiveInt } from '../parse-options.js'
import { RunError, TEST_RUN_KEY, createModel, type RunView, type TestRunResult } from '../../../agents/index.js'

/** RunErrors (no model, a missing key, an unknown agent) are one line, not a stack. */
async function orCliError<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    if (error instanceof RunError) throw new CliError(error.message)
    throw error
  }
}

function printRun(run: RunView): void {
  for (const step of run.steps ?? []) {
    if (step.kind === 'text') console.log(`  ${step.text}`)
    else
      console.log(
        `  → ${step.tool} ${truncate(JSON.stringify(step.input ?? {}), 80)}: ${step.status}${step.error ? ` (${truncate(step.error, 100)})` : ''}${step.callId ? ` [call ${step.callId}]` : ''}`,
      )
  }
  console.log(`run ${run.id} (${run.agent}): ${run.status}`)
  if (run.output) console.log(run.output)
  if (run.error) console.log(`error: ${run.error}`)
  // The person who started the run can't approve its calls: someone else decides.
  for (const p of run.pending) console.log(`waiting for approval of ${p.tool}: request ${p.approvalId}, for someone other than ${run.requester.name} to decide`)
}

export function runCommand(program: Command): void {
  program
    .command('run')
    .description('run an agent on a prompt with its model and bound skills (exit 0 completed, 1 failed, 2 waiting for approval)')
    .requiredOption('--agent <agent>', 'the agent (name, alias or id)')
    .argument('<prompt>', 'what to ask it')
    .option('--json', 'print the run as JSON')
    .action(async (prompt: string, _o: unknown, command: Command) => {
      const o = command.optsWithGlobals<GlobalOptions & { agent: string; json?: boolean }>()
      // Synced first, so that the agent's bindings (its tools) are there on a fresh data dir.
      const run = await withPlane(o, (plane) => orCliError(() => plane.runs.start({ agent: o.agent, prompt, requester: localAdmin() })), {
        connectMcp: true,
        sync: true,
      })
      if (o.json) console.log(JSON.stringify(run, null, 2))
      else printRun(run)
      process.exitCode = run.status === 'completed' ? 0 : run.status === 'failed' ? 1 : 2
    })

  const runs = program.command('runs').description('list and show agent runs')
  runs
    .command('list')
    .description('runs, newest first')
    .option('--agent <agent>', 'only this agent')
    .addOption(new Option('--status <status>', 'only this status').choices(['running', 'awaiting_approval', 'completed', 'failed']))
    .option('--limit <n>', 'rows (1-500)', parsePositiveInt, 50)
    .option('--json', 'print JSON')
    .action(async (_o: unknown, command: Command) => {
      const o = command.optsWithGlobals<GlobalOptions & { agent?: string; status?: string; limit: number; json?: boolean }>()
      const page = await withPlane(o, (plane) => plane.runs.list({ agent: o.agent, status: o.status, limit: Math.min(o.limit, 500) }))
      if (o.json) return console.log(JSON.stringify(page, null, 2))
      if (page.items.length === 0) return console.log('no runs')
      console.log(
        formatTable(
          ['ID', 'AGENT', 'STATUS', 'TEST', 'REQUESTER', 'CREATED', 'PROMPT'],
          page.items.map((r) => [r.id, r.agent, r.status, r.test ? 'yes' : '-', r.requester.name, r.createdAt, truncate(r.prompt, 50)]),
        ),
      )
    })
  runs
    .command('show <id>')
    .description('one run with its steps, each tool call with its audit call id')
    .option('--json', 'print JSON')
    .action(async (id: string, _o: unknown, command: Command) => {
      const o = command.optsWithGlobals<GlobalOptions & { json?: boolean }>()
      const run = await withPlane(o, (plane) => plane.runs.get(id))
      if (!run) throw new CliError(`no run "${id}"`)
      if (o.json) console.log(JSON.stringify(run, null, 2))
      else printRun(run)
    })

  program
    .command('test-run')
    .description('run an agent headless with an expectation and in-memory config changes; print a verdict (exit 1 on failed or incomplete)')
    .requiredOption('--agent <agent>', 'the agent (name, alias or id)')
    .requiredOption('--input <text>', 'what to ask it')
    .option('--expect-tool <key>', 'the terminal tool that should run and succeed')
    .option('--set <path=value>', 'change a setting for this run only (repeatable): systemPrompt, maxSteps, model.model, ...', collectSet, {})
    .action(async (_o: unknown, command: Command) => {
      const o = command.optsWithGlobals<GlobalOptions & { agent: string; input: string; expectTool?: string; set: Record<string, string> }>()
      const envelope = await withPlane(
        o,
        async (plane) => {
          await orCliError(async () => createModel(plane.runs.agent(o.agent)))
          // Through the test_run skill, so that policy and the audit log see it.
          return plane.invoke(
            TEST_RUN_KEY,
            { agent: o.agent, input: o.input, ...(o.expectTool && { expectTool: o.expectTool }), set: o.set },
            { caller: localAdmin() },
          )
        },
        { connectMcp: true, sync: true },
      )
      if (!envelope.ok) throw new CliError(`${envelope.error.code}: ${envelope.error.message}`)
      const result = envelope.data as TestRunResult
      console.log(JSON.stringify(result, null, 2))
      if (result.verdict === 'failed' || result.verdict === 'incomplete') process.exitCode = 1
    })
}

function collectSet(raw: string, previous: Record<string, string>): Record<string, string> {
  const at = raw.indexOf('=')
  if (at <= 0) throw new CliError(`--set takes path=value, got "${raw}"`)
  return { ...previous, [raw.slice(0, at)]: raw.slice(at + 1) }
}
