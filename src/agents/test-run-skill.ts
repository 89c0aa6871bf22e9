import type { SkillDefinition } from '../skill/index.js'
import { SkillError } from '../runtime/index.js'
import type { AgentRunner } from './agent-runner.js'
import { testRun } from './test-run.js'
import { RunError } from './run-error.js'
import { TEST_RUN_KEY } from './test-run-key.js'

/** test_run as a skill: gated and audited like any other, and never from inside a test run. */
export function testRunSkill(runner: () => AgentRunner | undefined): SkillDefinition {
  return {
    key: TEST_RUN_KEY,
    title: 'Test-run an agent',
    description:
      'Run an agent headless on an input, optionally with in-memory config changes (never saved), and report the output, ' +
      'the tools it called and a verdict: pass (the expected tool ran and succeeded), failed, incomplete or unconfirmed.',
    class: 'mutating',
    category: 'agents',
    timeoutMs: 10 * 60_000,
    input: {
      type: 'object',
      properties: {
        agent: { type: 'string', minLength: 1, description: 'The agent (name, alias or id).' },
        input: { type: 'string', minLength: 1, description: 'What to ask it.' },
        expectTool: { type: 'string', description: 'The terminal tool that should run and succeed.' },
        set: { type: 'object', additionalProperties: { type: 'string' }, description: 'Config changes for this run only: path → value.' },
      },
      required: ['agent', 'input'],
      additionalProperties: false,
    },
    run: async (input, ctx) => {
      if (ctx.conversationId?.startsWith('test-run:')) throw new SkillError('denied', 'a test run cannot start another test run')
      const { agent, input: prompt, expectTool, set } = input as { agent: string; input: string; expectTool?: string; set?: Record<string, string> }
      try {
        // An agent may test itself, never act as another agent through a test run.
        if (ctx.caller.kind === 'agent' && runner()!.agent(agent) !== runner()!.agent(ctx.caller.agentId)) {
          throw new SkillError('denied', `agent "${ctx.caller.agentId}" may only test-run itself`)
        }
        return await testRun(runner()!, { agent, input: prompt, expectTool, set, requester: ctx.caller })
      } catch (error) {
        if (error instanceof RunError) throw new SkillError(error.code, error.message)
        throw error
      }
    },
  }
}
