import { copyFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { callsTool, says, scripted } from '../test-support/mock-model.js'
import { databases, tempDir, waitFor } from '../test-support/databases.js'
import { admin, openTestPlane, operator, silentLogger, testAgents, testSkills } from '../test-support/fixtures.js'
import { listenSse } from '../test-support/listen-sse.js'
import { SERVICE_CLIENT, connectInBrowser, startTestOAuthService, type TestOAuthService, whoamiSkill, serviceProvider } from '../test-support/oauth-service.js'
import { defineSkill } from '../skill/index.js'
import { startHttpServer, type HttpServer } from '../surfaces/http/start-http-server.js'
import type { MockLanguageModelV3 } from 'ai/test'
import { createSkillplane, type RunView, type Skillplane } from './index.js'
import type { SkillplaneConfig } from '../config/index.js'
import { workSteps } from '../test-support/run-steps.js'

let service: TestOAuthService

/** Acts with the person's own account at the test service: asks its API whose token it holds. */
const profile = whoamiSkill(() => service.api, { key: 'test_profile', provider: 'test', agents: ['Helper'], echo: true })

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
  beforeAll(async () => {
    service = await startTestOAuthService()
  })
  afterAll(() => service.close())
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step().catch(() => {})
  })

  const config = (model: MockLanguageModelV3): SkillplaneConfig => ({
    skills: [...testSkills(), profile, post],
    agents: [{ ...testAgents![0]!, model, systemPrompt: 'You help.' }, testAgents![1]!],
    oauth: {
      providers: {
        test: serviceProvider(service, 'TEST_CLIENT_SECRET'),
      },
    },
  })

  async function setup(model: MockLanguageModelV3): Promise<{ plane: Skillplane; server: HttpServer; adminKey: string }> {
    const plane = await openTestPlane(database, config(model))
    cleanup.push(() => plane.close())
    await plane.values.secrets.set('TEST_CLIENT_SECRET', SERVICE_CLIENT.clientSecret, {})
    const server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    cleanup.push(() => server.close())
    const adminKey = (await plane.people.keys.create({ name: 'alice', role: 'admin' }, plane.now())).key
    return { plane, server, adminKey }
  }

  /** The person follows the link in their browser: to the provider, signed in there, and back. */
  async function follow(link: string, account: string): Promise<void> {
    const back = await connectInBrowser(link, (url) => service.approve(url, account))
    expect(back.status).toBe(302)
  }

  it('pauses in needs_auth naming the link, and resumes by itself once the person has connected', async () => {
    const model = scripted(callsTool('test_profile', {}), says('your token is there'))
    const { plane, server, adminKey } = await setup(model)
    const paused = await plane.runs.start({ agent: 'helper', prompt: 'who am I there?', requester: operator })
    expect(paused).toMatchObject({
      status: 'needs_auth',
      pending: [{ tool: 'test_profile', approvalId: null, provider: 'test', authorizationUrl: expect.stringMatching(/\/oauth\/start\?link=/) }],
    })
    const link = paused.pending[0]!.authorizationUrl!
    expect(workSteps(paused)).toEqual([
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
    // The model call, the call waiting for the connection, then the run.
    expect(events.kinds()).toEqual(['step', 'step', 'end'])
    expect(events.received[2]!.data).toMatchObject({ status: 'needs_auth', pending: [{ provider: 'test', authorizationUrl: expect.any(String) }] })

    await follow(link, 'oscar')
    await waitFor(async () => (await plane.runs.get(paused.id))!.status === 'completed')
    const done = (await plane.runs.get(paused.id))!
    expect(done).toMatchObject({ output: 'your token is there', pending: [] })
    expect(workSteps(done)[0]).toMatchObject({
      tool: 'test_profile',
      status: 'ok',
      callId: expect.any(String),
      output: { sub: 'oscar', scope: expect.stringContaining('issues:read'), raw: '[REDACTED]' },
    })
    expect(await plane.audit.get(workSteps(done)[0]!.callId!)).toMatchObject({
      skill: 'test_profile',
      status: 'ok',
      agent: 'helper',
      conversationId: `run:${paused.id}`,
    })
    // The model read the result, its token scrubbed.
    const read = JSON.stringify(model.doStreamCalls[1]!.prompt)
    expect(read).toMatch(/sub\W+oscar/)
    expect(read).toContain('[REDACTED]')
    expect(read).not.toContain('needs_auth')
    expect(JSON.stringify([read, done, await plane.audit.get(workSteps(done)[0]!.callId!)])).not.toMatch(/eyJ[\w-]+\./)
  })

  it('waits for an approval next when the call needs one once connected', async () => {
    const model = scripted(callsTool('test_post', { text: 'hello' }), says('posted'))
    const { plane } = await setup(model)
    const paused = await plane.runs.start({ agent: 'helper', prompt: 'post hello', requester: operator })
    expect(paused).toMatchObject({ status: 'needs_auth', pending: [{ tool: 'test_post', approvalId: null }] })
    // Nobody is asked to approve a call that could not run.
    expect((await plane.approvals.list({ status: 'pending', limit: 10 })).items).toEqual([])

    await follow(paused.pending[0]!.authorizationUrl!, 'oscar')
    await waitFor(async () => (await plane.runs.get(paused.id))!.status === 'awaiting_approval')
    const waiting = (await plane.runs.get(paused.id))!
    const approvalId = waiting.pending[0]!.approvalId!
    expect(waiting).toMatchObject({ pending: [{ tool: 'test_post', approvalId: expect.any(String), provider: null, authorizationUrl: null }] })
    expect(workSteps(waiting)[0]).toMatchObject({ status: 'awaiting_approval', approvalId })

    await plane.approvals.decide({ id: approvalId, caller: admin, decision: 'approve' })
    await waitFor(async () => (await plane.runs.get(paused.id))!.status === 'completed')
    expect(workSteps((await plane.runs.get(paused.id))!)[0]).toMatchObject({ status: 'ok', output: { posted: 'hello' } })
  })

  it('stays paused while someone else connects', async () => {
    const model = scripted(callsTool('test_profile', {}), says('done'))
    const { plane, server, adminKey } = await setup(model)
    const paused = await plane.runs.start({ agent: 'helper', prompt: 'who am I there?', requester: operator })
    // Alice connects her own account: the run acts for Oscar, so it goes on waiting for him.
    const refused = await fetch(`${server.url}/api/skills/test_profile/invoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ input: {} }),
    })
    expect(refused.status).toBe(424)
    await follow(((await refused.json()) as { error: { details: { authorizationUrl: string } } }).error.details.authorizationUrl, 'alice')
    expect(await plane.runs.resumeConnected('test')).toBe(0)
    expect(await plane.runs.get(paused.id)).toMatchObject({ status: 'needs_auth', pending: [{ provider: 'test' }] })
    expect(model.doStreamCalls).toHaveLength(1)
  })

  it.runIf(database.name === 'postgres')('resumes on its manager when the person connects through another one', async () => {
    const model = scripted(callsTool('test_profile', {}), says('done'))
    const { plane } = await setup(model)
    const paused = await plane.runs.start({ agent: 'helper', prompt: 'who am I there?', requester: operator })
    // Another manager on the same database serves the callback; it resumes no runs, so this one must.
    const otherDir = tempDir()
    for (const file of ['secrets-key', 'approval-secret']) copyFileSync(join(plane.status.dataDir, file), join(otherDir, file))
    const other = await createSkillplane({
      config: config(scripted()),
      dataDir: otherDir,
      databaseUrl: plane.status.location,
      logger: silentLogger(),
      resumeRuns: false,
    })
    cleanup.push(() => other.close())
    const otherServer = await startHttpServer(other, { host: '127.0.0.1', port: 0 })
    cleanup.push(() => otherServer.close())
    const link = new URL(paused.pending[0]!.authorizationUrl!)
    await follow(`${otherServer.url}${link.pathname}${link.search}`, 'oscar')
    await waitFor(async () => (await plane.runs.get(paused.id))!.status === 'completed')
    expect(workSteps((await plane.runs.get(paused.id))!)[0]).toMatchObject({ status: 'ok', output: { sub: 'oscar' } })
  })

  it('stops a test run at the link, unconfirmed', async () => {
    const model = scripted(callsTool('test_profile', {}), says('done'))
    const { plane } = await setup(model)
    const tested = await plane.invoke('test_run', { agent: 'helper', input: 'who am I there?' }, { caller: operator })
    expect(tested).toMatchObject({ ok: true, data: { verdict: 'unconfirmed', reason: 'the run paused until test is connected for test_profile' } })
  })
})
