import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { Skillplane } from '../agents/index.js'
import { defineSkill } from '../skill/index.js'
import type { CallerClient, ElicitParams, LogMessage, SampleParams } from '../skill/index.js'
import { databases } from '../test-support/databases.js'
import { admin, openTestPlane } from '../test-support/fixtures.js'

const FORM: ElicitParams = {
  message: 'Which region?',
  requestedSchema: { type: 'object', properties: { region: { type: 'string' }, apiToken: { type: 'string' } }, required: ['region'] },
}
const SAMPLE: SampleParams = { messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }], maxTokens: 20 }

const asking = defineSkill({
  key: 'ask_caller',
  description: 'Asks its caller a question and its model for a word, and logs',
  class: 'safe',
  input: z.object({ nested: z.boolean().default(false) }),
  run: async ({ nested }, ctx) => {
    if (nested) return (await ctx.invoke('ask_caller', {})).ok
    ctx.client.log({ level: 'info', data: 'asking' })
    const answer = await ctx.client.elicit(FORM, { signal: ctx.signal })
    const sampled = await ctx.client.sample(SAMPLE, { signal: ctx.signal })
    return { answer, model: sampled.model }
  },
})

const leaky = defineSkill({
  key: 'leaky_asker',
  description: 'Quotes a secret it holds in its question and its log line',
  class: 'safe',
  input: z.object({}),
  run: async (_input, ctx) => {
    ctx.secrets.conceal('s3cret-token-value')
    ctx.client.log({ level: 'info', data: { note: 'token s3cret-token-value' } })
    return ctx.client.elicit({ ...FORM, message: 'Use s3cret-token-value?' }, { signal: ctx.signal })
  },
})

/** A channel as a surface makes one, recording what reached it. */
function channel(overrides: Partial<CallerClient> = {}) {
  const seen = { elicit: [] as ElicitParams[], sample: [] as SampleParams[], log: [] as LogMessage[] }
  const client: CallerClient = {
    capabilities: { sampling: true, elicitation: { form: true, url: false }, logging: true },
    elicit: async (params) => {
      seen.elicit.push(params)
      return { action: 'accept', content: { region: 'eu-west', apiToken: 'tok-123' } }
    },
    sample: async (params) => {
      seen.sample.push(params)
      return { role: 'assistant', content: { type: 'text', text: 'hi there' }, model: 'caller-model', stopReason: 'endTurn' }
    },
    log: (message) => seen.log.push(message),
    ...overrides,
  }
  return { client, seen }
}

describe.each(databases)('ctx.client on $name', (database) => {
  let plane: Skillplane | undefined
  afterEach(async () => {
    await plane?.close()
    plane = undefined
  })

  it('reaches the caller the surface named, and records each question and its answer (scrubbed) on the call and in its tree', async () => {
    plane = await openTestPlane(database, { skills: [asking] })
    const { client, seen } = channel()
    const result = await plane.invoke('ask_caller', {}, { caller: admin, client })
    expect(result).toMatchObject({ ok: true, data: { answer: { action: 'accept', content: { region: 'eu-west' } }, model: 'caller-model' } })
    expect(seen.elicit).toEqual([FORM])
    expect(seen.sample).toEqual([SAMPLE])
    expect(seen.log.filter((l) => l.logger !== 'skillplane')).toEqual([{ level: 'info', data: 'asking' }])
    // skillplane's own lines about the call go to the same caller.
    expect(seen.log.filter((l) => l.logger === 'skillplane').map((l) => [l.level, l.data])).toEqual([
      ['debug', { event: 'call.started', callId: result.callId, skill: 'ask_caller' }],
      ['info', { event: 'call.finished', callId: result.callId, skill: 'ask_caller', status: 'ok', durationMs: expect.any(Number) }],
    ])

    const tree = (await plane.audit.tree({ callId: result.callId }))!
    expect(tree.spans.map((s) => [s.kind, s.name, s.status, s.parentId])).toEqual([
      ['call', 'ask_caller', 'ok', null],
      ['elicitation', 'Which region?', 'accepted', `call:${result.callId}`],
      ['sampling', 'caller-model', 'ok', `call:${result.callId}`],
    ])
    // A secret-looking field of the answer is kept out of the audit; the skill itself got it.
    expect(tree.spans[1]!.elicitation).toEqual({
      mode: 'form',
      message: 'Which region?',
      action: 'accept',
      content: { region: 'eu-west', apiToken: '[REDACTED]' },
    })
    expect(tree.spans[2]!.sampling).toEqual({ model: 'caller-model', stopReason: 'endTurn', text: 'hi there' })
  })

  it('passes the channel on to nested calls, whose questions are recorded on the nested call', async () => {
    plane = await openTestPlane(database, { skills: [asking] })
    const { client, seen } = channel()
    const result = await plane.invoke('ask_caller', { nested: true }, { caller: admin, client })
    expect(result).toMatchObject({ ok: true, data: true })
    expect(seen.elicit).toHaveLength(1)
    const tree = (await plane.audit.tree({ callId: result.callId }))!
    const nested = tree.spans.find((s) => s.kind === 'call' && s.parentId === `call:${result.callId}`)!
    expect(tree.spans.filter((s) => s.kind === 'elicitation' || s.kind === 'sampling').map((s) => [s.kind, s.parentId])).toEqual([
      ['elicitation', nested.id],
      ['sampling', nested.id],
    ])
  })

  it('without a channel, elicit rejects with unsupported naming what is missing, recorded on the call', async () => {
    plane = await openTestPlane(database, { skills: [asking] })
    const result = await plane.invoke('ask_caller', {}, { caller: admin })
    expect(result).toMatchObject({
      ok: false,
      error: {
        code: 'unsupported',
        message:
          'skill "ask_caller" asked its caller for input (form-mode elicitation), which the caller\'s client can\'t answer: this call came without a channel to its caller (an HTTP API or CLI call)',
      },
    })
    const tree = (await plane.audit.tree({ callId: result.callId }))!
    expect(tree.spans[1]).toMatchObject({
      kind: 'elicitation',
      status: 'error',
      elicitation: { action: null, error: expect.stringContaining('without a channel') },
    })
  })

  it("keeps the call's secrets out of what reaches the caller and the audit", async () => {
    plane = await openTestPlane(database, { skills: [leaky] })
    const { client, seen } = channel()
    const result = await plane.invoke('leaky_asker', {}, { caller: admin, client })
    expect(result.ok).toBe(true)
    expect(seen.elicit.map((p) => p.message)).toEqual(['Use [REDACTED]?'])
    expect(seen.log.filter((l) => l.logger !== 'skillplane')).toEqual([{ level: 'info', data: { note: 'token [REDACTED]' } }])
    const tree = (await plane.audit.tree({ callId: result.callId }))!
    expect(tree.spans[1]!.elicitation!.message).toBe('Use [REDACTED]?')
  })

  it('refuses what the client did not declare, and a malformed answer, without passing it to the skill', async () => {
    plane = await openTestPlane(database, { skills: [asking] })
    const noSampling = channel()
    noSampling.client = { ...noSampling.client, capabilities: { ...noSampling.client.capabilities, sampling: false } }
    const refused = await plane.invoke('ask_caller', {}, { caller: admin, client: noSampling.client })
    expect(refused).toMatchObject({ ok: false, error: { code: 'unsupported', message: expect.stringContaining('it did not declare the sampling capability') } })
    expect(noSampling.seen.sample).toEqual([])

    const malformed = channel({ elicit: async () => ({ action: 'maybe' }) as never })
    const bad = await plane.invoke('ask_caller', {}, { caller: admin, client: malformed.client })
    expect(bad).toMatchObject({
      ok: false,
      error: { code: 'invalid_input', message: "the caller's answer to an elicitation is malformed: action must be accept, decline or cancel" },
    })
  })
})
