import type { Caller } from '../skill/index.js'
import type { AgentRunner, RunView } from './agent-runner.js'

export type Verdict = 'pass' | 'failed' | 'incomplete' | 'unconfirmed'

export interface TestRunResult {
  output: string | null
  tools: Array<{ name: string; called: boolean; ok: boolean }>
  approvals: Array<{ tool: string; approvalId: string | null }>
  verdict: Verdict
  reason: string
  runId: string
}

export interface TestRunInput {
  agent: string
  input: string
  /** The terminal tool that should run and succeed. */
  expectTool?: string
  /** In-memory config changes for this run only (`path` → value); never saved. */
  set?: Record<string, string>
  requester: Caller
}

/** Run an agent headless with an optional expectation, and say how it went. */
export async function testRun(runner: AgentRunner, input: TestRunInput): Promise<TestRunResult> {
  const run = await runner.start({ agent: input.agent, prompt: input.input, requester: input.requester, overrides: input.set, test: true })
  return judge(run, input.expectTool)
}

function judge(run: RunView, expectTool: string | undefined): TestRunResult {
  const calls = (run.steps ?? []).filter((s) => s.kind === 'tool')
  const tools = calls.map((s) => ({ name: s.tool!, called: true, ok: s.status === 'ok' }))
  if (expectTool && !tools.some((t) => t.name === expectTool)) tools.push({ name: expectTool, called: false, ok: false })
  const approvals = run.pending.map((p) => ({ tool: p.tool, approvalId: p.approvalId }))
  const base = { output: run.output, tools, approvals, runId: run.id }
  const failedCall = calls.find((s) => s.status === 'error')
  if (run.status === 'failed') return { ...base, verdict: 'failed', reason: `the run failed: ${run.error}` }
  if (failedCall) return { ...base, verdict: 'failed', reason: `tool ${failedCall.tool} failed: ${failedCall.error}` }
  if (run.status === 'awaiting_approval') {
    return { ...base, verdict: 'unconfirmed', reason: `the run paused for approval of ${approvals.map((a) => a.tool).join(', ')}` }
  }
  if (run.status === 'needs_auth') {
    const waiting = run.pending.filter((p) => p.authorizationUrl !== null)
    return { ...base, verdict: 'unconfirmed', reason: `the run paused until ${waiting.map((p) => `${p.provider} is connected for ${p.tool}`).join(', ')}` }
  }
  if (!expectTool) return { ...base, verdict: 'unconfirmed', reason: 'no expected tool was given, so the run could not be checked' }
  const expected = calls.filter((s) => s.tool === expectTool)
  if (expected.length === 0) return { ...base, verdict: 'incomplete', reason: `the expected tool ${expectTool} never ran` }
  if (expected.at(-1)!.status === 'ok') return { ...base, verdict: 'pass', reason: `${expectTool} ran and succeeded` }
  return { ...base, verdict: 'failed', reason: `${expectTool} did not succeed (${expected.at(-1)!.status})` }
}
