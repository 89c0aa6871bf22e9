import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { callsTool, says, scripted } from '../test-support/mock-model.js'
import { databases, waitFor } from '../test-support/databases.js'
import { admin, openTestPlane, operator, testAgents, testSkills } from '../test-support/fixtures.js'
import { listenSse } from '../test-support/listen-sse.js'
import { startTestIdentityProvider, type TestIdentityProvider } from '../test-support/identity-provider.js'
import { defineSkill } from '../skill/index.js'
import { startHttpServer, type HttpServer } from '../surfaces/http/start-http-server.js'
import type { MockLanguageModelV3 } from 'ai/test'
import type { RunView, Skillplane } from './index.js'

/** Reads the person's profile at the test provider with their own token; says only how long the token is. */
const profile = defineSkill({
  key: 'test_profile',
  description: "Read the person's profile at the test provider",
  class: 'safe',
  agents: ['Helper'],
  oauth: { provider: 'test' },
  input: z.object({}),
  run: async (_input, ctx) => ({ tokenLength: ctx.secrets.get('test').length, token: ctx.secrets.get('test') }),
})

/** Changes something at the provider: once connected, it still needs an approval. */
const post = defineSkill({
  key: 'test_post',
  description: 'Post as the person at the test provider',
  class: 'mutating',
  agents: ['Helper'],
  oauth: { provider: 'test' },
  input: z.object({ text: z.string() }),
  run: async ({ text }) => ({ posted: text }),
})

describe.each(databases)('agent runs that need the person to connect an account, on $name', (database) => {
  const cleanup: Array<() => Promise<unknown>> = []
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step().catch(() => {})
  })

  async function setup(model: MockLanguageModelV3): Promise<{ plane: Skillplane; server: HttpServer; idp: TestIdentityProvider; adminKey: string }> {
    const idp = await startTestIdentityProvider()
    cleanup.push(() => idp.close())
    const plane = await openTestPlane(database, {
      skills: [...testSkills(), profile, post],
      agents: [{ ...testAgents![0]!, model, systemPrompt: 'You help.' }, testAgents![1]!],
      oauth: { providers: { test: idp.connectionsProvider() } },
    })
    cleanup.push(() => plane.close())
    await idp.setUpConnections(plane)
    const server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    cleanup.push(() => server.close())
    const adminKey = (await plane.people.keys.create({ name: 'alice', role: 'admin' }, plane.now())).key
    return { plane, server, idp, adminKey }
  }

  /** The person follows the link in their browser: to the provider, signed in there, and back. */
  async function follow(idp: TestIdentityProvider, link: string, account: string): Promise<void> {
    const start = await fetch(link, { redirect: 'manual' })
    expect(start.status).toBe(302)
    const back = await fetch(await idp.signIn(start.headers.get('location')!, account), { redirect: 'manual' })
    expect(back.status).toBe(302)
  }

  it('pauses in needs_auth naming the link, and resumes by itself once the person has connected', async () => {
    const model = scripted(callsTool('test_profile', {}), says('your token is there'))
    const { plane, server, idp, adminKey } = await setup(model)
    const paused = await plane.runs.start({ agent: 'helper', prompt: 'who am I there?', requester: operator })
    expect(paused).toMatchObject({
      status: 'needs_auth',
      pending: [{ tool: 'test_profile', approvalId: null, provider: 'test', authorizationUrl: expect.stringMatching(/\/oauth\/start\?link=/) }],
    })
    const link = paused.pending[0]!.authorizationUrl!
    expect(paused.steps).toEqual([
      expect.objectContaining({ tool: 'test_profile', status: 'needs_auth', error: expect.stringContaining('/oauth/start?link=') }),
    ])
    // Nothing ran, and the model never read a refusal.
    expect((await plane.audit.query({ skill: 'test_profile', limit: 10 })).items).toEqual([])
    expect(model.doStreamCalls).toHaveLength(1)

    // The runs API and the event stream name it too.
    const shown = (await (await fetch(`${server.url}/api/runs/${paused.id}`, { headers: { authorization: `Bearer ${adminKey}` } })).json()) as RunView
    expect(shown).toMatchObject({ status: 'needs_auth', pending: [{ provider: 'test', authorizationUrl: expect.stringContaining('/oauth/start?link=') }] })
    const events = await listenSse<{ status?: string; pending?: RunView['pending'] }>(`${server.url}/api/runs/${paused.id}/events`, adminKey)
    await events.ended
    expect(events.kinds()).toEqual(['step', 'end'])
    expect(events.received[1]!.data).toMatchObject({ status: 'needs_auth', pending: [{ provider: 'test', authorizationUrl: expect.any(String) }] })

    await follow(idp, link, 'oscar')
    await waitFor(async () => (await plane.runs.get(paused.id))!.status === 'completed')
    const done = (await plane.runs.get(paused.id))!
    expect(done).toMatchObject({ output: 'your token is there', pending: [] })
    expect(done.steps![0]).toMatchObject({
      tool: 'test_profile',
      status: 'ok',
      callId: expect.any(String),
      output: { tokenLength: expect.any(Number), token: '[REDACTED]' },
    })
    expect(await plane.audit.get(done.steps![0]!.callId!)).toMatchObject({ skill: 'test_profile', status: 'ok', onBehalfOf: { name: 'oscar' } })
    // The model read the result, its token scrubbed.
    const read = JSON.stringify(model.doStreamCalls[1]!.prompt)
    expect(read).toContain('tokenLength')
    expect(read).toContain('[REDACTED]')
    expect(read).not.toContain('needs_auth')
  })

  it('waits for an approval next when the call needs one once connected', async () => {
    const model = scripted(callsTool('test_post', { text: 'hello' }), says('posted'))
    const { plane, idp } = await setup(model)
    const paused = await plane.runs.start({ agent: 'helper', prompt: 'post hello', requester: operator })
    expect(paused).toMatchObject({ status: 'needs_auth', pending: [{ tool: 'test_post', approvalId: null }] })
    // Nobody is asked to approve a call that could not run.
    expect((await plane.approvals.list({ status: 'pending', limit: 10 })).items).toEqual([])

    await follow(idp, paused.pending[0]!.authorizationUrl!, 'oscar')
    await waitFor(async () => (await plane.runs.get(paused.id))!.status === 'awaiting_approval')
    const waiting = (await plane.runs.get(paused.id))!
    const approvalId = waiting.pending[0]!.approvalId!
    expect(waiting).toMatchObject({ pending: [{ tool: 'test_post', approvalId: expect.any(String), provider: null, authorizationUrl: null }] })
    expect(waiting.steps![0]).toMatchObject({ status: 'awaiting_approval', approvalId })

    await plane.approvals.decide({ id: approvalId, caller: admin, decision: 'approve' })
    await waitFor(async () => (await plane.runs.get(paused.id))!.status === 'completed')
    expect((await plane.runs.get(paused.id))!.steps![0]).toMatchObject({ status: 'ok', output: { posted: 'hello' } })
  })

  it('stays paused while someone else connects, and a test run stops there', async () => {
    const model = scripted(callsTool('test_profile', {}), says('done'), callsTool('test_profile', {}, 'c2'))
    const { plane, idp } = await setup(model)
    const paused = await plane.runs.start({ agent: 'helper', prompt: 'who am I there?', requester: operator })
    // Alice's own link connects Alice, not the person the run acts for.
    const refused = await plane.invoke('test_profile', {}, { caller: admin })
    const alicesLink = (refused as { error: { details: { authorizationUrl: string } } }).error.details.authorizationUrl
    await follow(idp, alicesLink, 'alice')
    expect((await plane.invoke('test_profile', {}, { caller: admin })).ok).toBe(true)
    expect(await plane.runs.resumeConnected('test')).toBe(0)
    expect((await plane.runs.get(paused.id))!.status).toBe('needs_auth')
  })
})
