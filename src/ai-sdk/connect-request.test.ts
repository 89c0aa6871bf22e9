import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { generateText, stepCountIs, type ModelMessage } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { callsTool, says } from '../test-support/mock-model.js'
import { databases } from '../test-support/databases.js'
import { openTestPlane, operator, testSkills } from '../test-support/fixtures.js'
import { SERVICE_CLIENT, startTestOAuthService, type TestOAuthService, whoamiSkill, connectInBrowser, serviceProvider } from '../test-support/oauth-service.js'
import type { Skillplane } from '../agents/index.js'
import { startHttpServer, type HttpServer } from '../surfaces/http/index.js'
import { toAISDKTools } from './index.js'

const [sqlite] = databases
let service: TestOAuthService

/** Acts with the caller's own account at the test service: asks its API whose token it holds. */
const profile = whoamiSkill(() => service.api, { key: 'test_profile', provider: 'test' })

describe('AI SDK tools for a skill the person must connect first', () => {
  const cleanup: Array<() => Promise<unknown>> = []
  beforeAll(async () => {
    service = await startTestOAuthService()
  })
  afterAll(() => service.close())
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step().catch(() => {})
  })

  async function setup(): Promise<{ plane: Skillplane; server: HttpServer }> {
    const plane = await openTestPlane(sqlite!, {
      skills: [...testSkills(), profile],
      oauth: {
        providers: {
          test: serviceProvider(service, 'TEST_CLIENT_SECRET'),
        },
      },
    })
    cleanup.push(() => plane.close())
    await plane.values.secrets.set('TEST_CLIENT_SECRET', SERVICE_CLIENT.clientSecret, {})
    const server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    cleanup.push(() => server.close())
    return { plane, server }
  }

  it('without onConnectRequest, runs the call: the model reads the refusal and the link', async () => {
    const { plane } = await setup()
    const tools = toAISDKTools(plane, { caller: operator })
    const result = await generateText({
      model: new MockLanguageModelV3({ doGenerate: [callsTool('test_profile', {}), says('please connect')] }),
      tools,
      prompt: 'who am I?',
      stopWhen: stepCountIs(3),
    })
    expect(result.steps[0]!.content).toMatchObject([
      { type: 'tool-call' },
      {
        type: 'tool-error',
        error: expect.objectContaining({ message: expect.stringMatching(/^needs_auth: .*connect at http:\/\/127\.0\.0\.1:\d+\/oauth\/start\?link=/) }),
      },
    ])
    expect((await plane.audit.query({ skill: 'test_profile', limit: 5 })).items).toMatchObject([{ status: 'error' }])
  })

  it('with onConnectRequest, asks before the call; once the person has connected, the approved call runs', async () => {
    const { plane } = await setup()
    const asked: Array<{ toolName: string; key: string; link: { provider: string; url: string }; message: string }> = []
    const tools = toAISDKTools(plane, { caller: operator, onConnectRequest: (event) => asked.push(event) })
    const first = await generateText({ model: new MockLanguageModelV3({ doGenerate: [callsTool('test_profile', {})] }), tools, prompt: 'who am I?' })
    const request = first.content.find((part) => part.type === 'tool-approval-request') as { approvalId: string } | undefined
    expect(request).toBeDefined()
    expect(asked).toEqual([
      {
        toolCallId: 'call-1',
        toolName: 'test_profile',
        key: 'test_profile',
        link: { provider: 'test', url: expect.stringMatching(/\/oauth\/start\?link=/) },
        message: expect.stringContaining('has no usable test connection'),
      },
    ])
    // Nothing ran, and nothing was audited: the call has not happened yet.
    expect((await plane.audit.query({ skill: 'test_profile', limit: 5 })).items).toEqual([])

    const answer: ModelMessage[] = [
      { role: 'user', content: 'who am I?' },
      ...first.response.messages,
      { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: request!.approvalId, approved: true }] },
    ]
    // Answered before the person connected: the call runs and the model reads the refusal.
    const early = await generateText({ model: new MockLanguageModelV3({ doGenerate: [says('not yet')] }), tools, messages: answer })
    expect(JSON.stringify(early.response.messages)).toContain('needs_auth')

    expect((await connectInBrowser(asked[0]!.link.url, (url) => service.approve(url, 'oscar'))).status).toBe(302)
    const done = await generateText({ model: new MockLanguageModelV3({ doGenerate: [says('you are oscar')] }), tools, messages: answer })
    expect(done.text).toBe('you are oscar')
    expect(JSON.stringify(done.response.messages)).toContain('"sub":"oscar"')
  })
})
