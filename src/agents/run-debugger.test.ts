import { afterEach, describe, expect, it } from 'vitest'
import { MockLanguageModelV3 } from 'ai/test'
import { callsTool, says, scripted } from '../test-support/mock-model.js'
import { databases, waitFor } from '../test-support/databases.js'
import { admin, openTestPlane, operator, testAgents, testSkills } from '../test-support/fixtures.js'
import { defineSkill } from '../skill/index.js'
import { z } from 'zod'
import type { AgentConfig } from '../config/define-config.js'
import type { RunStep, Skillplane } from './index.js'

const PRICING = { inputPerMTok: 3, outputPerMTok: 15, cachedInputPerMTok: 0.3, cacheWritePerMTok: 3.75 }

/** What the model was sent on its n-th call, as the request route serves it. */
const sent = (model: MockLanguageModelV3, n: number) => {
  const call = model.doStreamCalls[n]!
  return JSON.parse(
    JSON.stringify({
      system: call.prompt.filter((m) => m.role === 'system').map((m) => m.content)[0] ?? null,
      tools: (call.tools ?? []).map((t) => ({ name: t.name, description: t.type === 'function' ? (t.description ?? null) : null })),
      messages: call.prompt.filter((m) => m.role !== 'system'),
    }),
  ) as unknown
}

const at = (time: string | null) => Date.parse(time!)

describe.each(databases)('a run as a debugger on $name', (database) => {
  const planes: Skillplane[] = []
  afterEach(async () => {
    await Promise.all(planes.splice(0).map((p) => p.close()))
  })
  const open = async (model: MockLanguageModelV3, extra: Partial<AgentConfig> = {}) => {
    const plane = await openTestPlane(database, { agents: [{ ...testAgents![0]!, model, systemPrompt: 'You help.', ...extra }, testAgents![1]!] })
    planes.push(plane)
    return plane
  }

  it('records each model call with its usage, cached tokens, cost and times, across two tool calls and a pause for approval', async () => {
    const model = scripted(
      callsTool('echo', { message: 'one' }, 'c1', { input: 1000, output: 50, cacheWrite: 800 }),
      callsTool('write_thing', { value: 'v1' }, 'c2', { input: 1200, output: 40, cacheRead: 800, reasoning: 10 }),
      says('stored v1', { input: 1300, output: 20, cacheRead: 1000 }),
    )
    const plane = await open(model, { pricing: PRICING })
    const paused = await plane.runs.start({ agent: 'helper', prompt: 'echo one, then store v1', requester: operator })
    expect(paused).toMatchObject({ status: 'awaiting_approval', totals: { modelSteps: 2, inputTokens: 2200, outputTokens: 90, cachedInputTokens: 800 } })
    expect(paused.totals.costUsd).toBeCloseTo(0.00435 + 0.00204, 10)
    // While it waits, the wait shows, apart from the work.
    await waitFor(async () => (await plane.runs.get(paused.id))!.totals.approvalWaitMs > 0)
    const waitedSoFar = (await plane.runs.get(paused.id))!.totals.approvalWaitMs
    await plane.approvals.decide({ id: paused.pending[0]!.approvalId!, caller: admin, decision: 'approve' })
    await waitFor(async () => (await plane.runs.get(paused.id))!.status === 'completed')
    const run = (await plane.runs.get(paused.id))!
    const steps = run.steps!
    expect(steps.map((s) => s.kind)).toEqual(['model', 'tool', 'model', 'tool', 'model', 'text'])
    const [first, echo, second, write, third, text] = steps as [RunStep, RunStep, RunStep, RunStep, RunStep, RunStep]
    const model1 = { provider: 'mock-provider', modelId: 'mock-model-id' }
    expect(first).toMatchObject({
      stepNumber: 1,
      status: 'ok',
      model: model1,
      usage: { inputTokens: 1000, outputTokens: 50, cachedInputTokens: 0, cacheWriteTokens: 800, reasoningTokens: 0 },
      finishReason: 'tool-calls',
    })
    expect(second).toMatchObject({
      stepNumber: 2,
      usage: { inputTokens: 1200, outputTokens: 40, cachedInputTokens: 800, cacheWriteTokens: 0, reasoningTokens: 10 },
      finishReason: 'tool-calls',
    })
    expect(third).toMatchObject({ stepNumber: 3, usage: { inputTokens: 1300, outputTokens: 20, cachedInputTokens: 1000 }, finishReason: 'stop' })
    // Uncached input, cache writes, cache reads and output, each at its price per million tokens.
    expect(first.costUsd).toBeCloseTo((200 * 3 + 800 * 3.75 + 50 * 15) / 1e6, 12)
    expect(second.costUsd).toBeCloseTo((400 * 3 + 800 * 0.3 + 40 * 15) / 1e6, 12)
    expect(third.costUsd).toBeCloseTo((300 * 3 + 1000 * 0.3 + 20 * 15) / 1e6, 12)
    expect(run.totals).toMatchObject({ modelSteps: 3, inputTokens: 3500, outputTokens: 110, cachedInputTokens: 1800 })
    expect(run.totals.costUsd).toBeCloseTo(first.costUsd! + second.costUsd! + third.costUsd!, 12)

    // Every step is timed, each time consistent with itself, and in the order things happened.
    for (const step of steps) {
      expect(step.startedAt).not.toBeNull()
      expect(at(step.finishedAt)).toBeGreaterThanOrEqual(at(step.startedAt))
      expect(Math.abs(step.durationMs! - (at(step.finishedAt) - at(step.startedAt)))).toBeLessThanOrEqual(1)
    }
    for (const step of [first, second, third]) expect(step.firstChunkMs).toBeLessThanOrEqual(step.durationMs!)
    const order = [first.startedAt, echo.startedAt, echo.finishedAt, second.startedAt, second.finishedAt, write.startedAt, write.finishedAt, third.startedAt]
    expect(order.map(at)).toEqual([...order.map(at)].sort((a, b) => a - b))
    expect(at(text.startedAt)).toBeGreaterThanOrEqual(at(third.startedAt))
    expect(at(text.finishedAt)).toBeLessThanOrEqual(at(third.finishedAt))
    // A tool step's times are its audit row's.
    for (const tool of [echo, write]) {
      expect(await plane.audit.get(tool.callId!)).toMatchObject({ startedAt: tool.startedAt, finishedAt: tool.finishedAt, durationMs: tool.durationMs })
    }
    // The totals add the steps up; the wait for the approver lies between the model's ask and the call, apart from both.
    expect(run.totals.modelMs).toBeCloseTo(first.durationMs! + second.durationMs! + third.durationMs!, 6)
    expect(run.totals.toolMs).toBeCloseTo(echo.durationMs! + write.durationMs!, 6)
    expect(run.totals.approvalWaitMs).toBeGreaterThanOrEqual(waitedSoFar)
    expect(run.totals.approvalWaitMs).toBeLessThanOrEqual(at(write.startedAt) - at(second.finishedAt))
    expect(run.totals.durationMs).toBe(at(run.finishedAt) - at(run.createdAt))

    // What each model call was sent, exactly, rebuilt from what is stored, across the pause.
    const models = steps.filter((s) => s.kind === 'model')
    for (const [n, step] of models.entries()) {
      const found = await plane.runs.request(run.id, step.index)
      expect(found!.step!.request).toEqual(sent(model, n))
    }
    expect(JSON.stringify(await plane.runs.request(run.id, 4))).toContain('"system":"You help.')
    expect(await plane.runs.request(run.id, 1)).toEqual({ agent: 'helper', step: { kind: 'tool' } })
    expect(await plane.runs.request(run.id, 99)).toEqual({ agent: 'helper' })
  })

  it('has no cost without pricing, and none for a provider that reports no usage', async () => {
    const unpriced = await open(scripted(says('hi', { input: 5, output: 2 })))
    const run = await unpriced.runs.start({ agent: 'helper', prompt: 'x', requester: admin })
    expect(run.steps![0]).toMatchObject({ kind: 'model', usage: { inputTokens: 5, outputTokens: 2 }, costUsd: null })
    expect(run.totals).toMatchObject({ inputTokens: 5, outputTokens: 2, costUsd: null, modelSteps: 1 })

    const silent = says('hi')
    silent.usage = {
      inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: undefined, text: undefined, reasoning: undefined },
    }
    const priced = await open(scripted(silent), { pricing: PRICING })
    const quiet = await priced.runs.start({ agent: 'helper', prompt: 'x', requester: admin })
    expect(quiet.steps![0]).toMatchObject({
      kind: 'model',
      usage: { inputTokens: null, outputTokens: null, cachedInputTokens: null, cacheWriteTokens: null, reasoningTokens: null },
      costUsd: null,
    })
    expect(quiet.totals).toMatchObject({ inputTokens: 0, costUsd: null, modelSteps: 1 })
  })

  it('stores a failed model call as a failed model step', async () => {
    const model = new MockLanguageModelV3({
      doStream: async () => {
        throw new Error('the provider is over capacity')
      },
    })
    const plane = await open(model)
    const run = await plane.runs.start({ agent: 'helper', prompt: 'x', requester: admin })
    expect(run).toMatchObject({ status: 'failed', error: expect.stringContaining('over capacity') })
    expect(run.steps).toEqual([
      expect.objectContaining({
        kind: 'model',
        stepNumber: 1,
        status: 'error',
        error: 'model call failed: the provider is over capacity',
        durationMs: expect.any(Number),
        finishedAt: expect.any(String),
      }),
    ])
    expect(run.totals.modelSteps).toBe(0)
  })

  it('keeps a secret out of text the model wrote in the same step as the tool call that reveals it', async () => {
    const SECRET = 'hunter2-in-the-same-step'
    const turn = callsTool('use_token', { token: SECRET, note: 'hi' }, 'c1')
    const model = scripted({ ...turn, content: [{ type: 'text', text: `I will use ${SECRET} now` }, ...turn.content] }, says('done'))
    const useToken = defineSkill({
      key: 'use_token',
      description: 'Uses a token',
      class: 'safe',
      agents: ['Helper'],
      input: z.object({ token: z.string().meta({ writeOnly: true }), note: z.string() }),
      run: ({ note }) => ({ note }),
    })
    const plane = await openTestPlane(database, { skills: [...testSkills(), useToken], agents: [{ ...testAgents![0]!, model }] })
    planes.push(plane)
    const run = await plane.runs.start({ agent: 'helper', prompt: 'use the token', requester: admin })
    const shown = (await plane.runs.get(run.id))!
    expect(shown.steps!.find((step) => step.kind === 'text')?.text).toBe('I will use [REDACTED] now')
    expect(JSON.stringify(shown)).not.toContain(SECRET)
    for (const step of shown.steps!.filter((s) => s.kind === 'model'))
      expect(JSON.stringify(await plane.runs.request(run.id, step.index))).not.toContain(SECRET)
  })
})
