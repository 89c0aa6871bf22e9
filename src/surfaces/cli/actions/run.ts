import { withPlane, localAdmin, type GlobalOptions } from '../open-plane.js'
import { truncate, formatTable } from '../format-table.js'
import { CliError } from '../cli-error.js'
import { TEST_RUN_KEY, createModel, type RunView, type TestRunResult } from '../../../agents/index.js'

function printRun(run: RunView): void {
  for (const step of run.steps ?? []) {
    // What the run did; its model calls (timing, tokens) are in --json and the console.
    if (step.kind === 'model') continue
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
  for (const p of run.pending) {
    if (p.authorizationUrl) console.log(`waiting for ${run.requester.name} to connect ${p.provider} for ${p.tool}: ${p.authorizationUrl}`)
    else console.log(`waiting for approval of ${p.tool}: request ${p.approvalId}, for someone other than ${run.requester.name} to decide`)
  }
}

export async function run(prompt: string, o: GlobalOptions & { agent: string; json?: boolean }): Promise<void> {
  // Synced first, so that the agent's bindings (its tools) are there on a fresh data dir.
  const run = await withPlane(o, (plane) => plane.runs.start({ agent: o.agent, prompt, requester: localAdmin() }), {
    connectMcp: true,
    sync: true,
  })
  if (o.json) console.log(JSON.stringify(run, null, 2))
  else printRun(run)
  process.exitCode = run.status === 'completed' ? 0 : run.status === 'failed' ? 1 : 2
}

export async function runsList(o: GlobalOptions & { agent?: string; status?: string; limit: number; json?: boolean }): Promise<void> {
  const page = await withPlane(o, (plane) => plane.runs.list({ agent: o.agent, status: o.status, limit: Math.min(o.limit, 500) }))
  if (o.json) return console.log(JSON.stringify(page, null, 2))
  if (page.items.length === 0) return console.log('no runs')
  console.log(
    formatTable(
      ['ID', 'AGENT', 'STATUS', 'TEST', 'REQUESTER', 'CREATED', 'PROMPT'],
      page.items.map((r) => [r.id, r.agent, r.status, r.test ? 'yes' : '-', r.requester.name, r.createdAt, truncate(r.prompt, 50)]),
    ),
  )
}

export async function runsShow(id: string, o: GlobalOptions & { json?: boolean }): Promise<void> {
  const run = await withPlane(o, (plane) => plane.runs.get(id))
  if (!run) throw new CliError(`no run "${id}"`)
  if (o.json) console.log(JSON.stringify(run, null, 2))
  else printRun(run)
}

export async function testRun(o: GlobalOptions & { agent: string; input: string; expectTool?: string; set: Record<string, string> }): Promise<void> {
  const envelope = await withPlane(
    o,
    async (plane) => {
      // The changes first (a refused one is the clearer error), then a usable model.
      createModel(plane.runs.agent(o.agent, o.set))
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
}
