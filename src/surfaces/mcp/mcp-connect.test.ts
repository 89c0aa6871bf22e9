import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ElicitationCompleteNotificationSchema, ElicitRequestSchema, type ElicitRequestURLParams } from '@modelcontextprotocol/sdk/types.js'
import { databases } from '../../test-support/databases.js'
import { openTestPlane, testSkills } from '../../test-support/fixtures.js'
import type { Skillplane } from '../../agents/index.js'
import { startHttpServer, type HttpServer } from '../http/start-http-server.js'
import {
  SERVICE_CLIENT,
  connectInBrowser,
  startTestOAuthService,
  type ConnectRoundTrip,
  type TestOAuthService,
  whoamiSkill,
  serviceProvider,
} from '../../test-support/oauth-service.js'

const [sqlite] = databases

type ToolResult = {
  isError?: boolean
  content: Array<{ type: string; text?: string; uri?: string; name?: string; mimeType?: string }>
  structuredContent?: unknown
  _meta?: Record<string, unknown>
}

let service: TestOAuthService

/** Acts with the caller's own account at the test service: asks its API whose token it holds. */
const profile = whoamiSkill(() => service.api, { key: 'test_profile', provider: 'test', echo: true })

describe('MCP: a tool that needs the person to connect an account', () => {
  const cleanup: Array<() => Promise<unknown>> = []
  beforeAll(async () => {
    service = await startTestOAuthService()
  })
  afterAll(() => service.close())
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step().catch(() => {})
  })

  async function setup(config: { waitTimeoutMs?: number } = {}): Promise<{ plane: Skillplane; server: HttpServer; key: string }> {
    const plane = await openTestPlane(sqlite!, {
      skills: [...testSkills(), profile],
      oauth: {
        providers: {
          test: serviceProvider(service, 'TEST_CLIENT_SECRET', 'Test Service'),
        },
      },
      ...(config.waitTimeoutMs && { approvals: { waitTimeoutMs: config.waitTimeoutMs } }),
    })
    cleanup.push(() => plane.close())
    await plane.values.secrets.set('TEST_CLIENT_SECRET', SERVICE_CLIENT.clientSecret, {})
    const server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    cleanup.push(() => server.close())
    const key = (await plane.people.keys.create({ name: 'oscar', role: 'operator' }, plane.now())).key
    return { plane, server, key }
  }

  async function connect(server: HttpServer, key: string, options: ConstructorParameters<typeof Client>[1] = {}): Promise<Client> {
    const client = new Client({ name: 'test-client', version: '1.0.0' }, options)
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }))
    cleanup.push(() => client.close())
    return client
  }

  const call = (client: Client, name: string, args: Record<string, unknown> = {}) => client.callTool({ name, arguments: args }) as Promise<ToolResult>

  /** A person following a connect link in their browser: skillplane sends them to the provider, they sign in there, and come back. */
  const follow = (link: string, account: string) => connectInBrowser(link, (url) => service.approve(url, account))

  it('gives a client without URL elicitation the link as text and a resource_link; once connected the call runs', async () => {
    const { plane, server, key } = await setup()
    const client = await connect(server, key)
    const refused = await call(client, 'test_profile')
    const link = refused._meta!['skillplane/authorizationUrl'] as string
    expect(link).toMatch(new RegExp(`^${server.url}/oauth/start\\?link=`))
    expect(refused).toMatchObject({
      isError: true,
      content: [
        { type: 'text', text: expect.stringMatching(/^needs_auth: .*test.*\n\nOnce connected, call this tool again with the same arguments\.$/s) },
        { type: 'resource_link', uri: link, name: 'connect-test', mimeType: 'text/html' },
      ],
      _meta: { 'skillplane/error': 'needs_auth' },
    })
    expect(refused.content[0]!.text).toContain(link)
    expect(await plane.audit.get(refused._meta!['skillplane/callId'] as string)).toMatchObject({
      skill: 'test_profile',
      status: 'error',
      error: { code: 'needs_auth' },
    })

    expect((await follow(link, 'oscar')).status).toBe(302)
    const ran = await call(client, 'test_profile')
    expect(ran.isError).toBeFalsy()
    // Oscar's own token, which the model never sees.
    expect(JSON.parse(ran.content[0]!.text!)).toEqual({ sub: 'oscar', scope: expect.stringContaining('issues:read'), raw: '[REDACTED]' })
    const row = await plane.audit.get(ran._meta!['skillplane/callId'] as string)
    expect(row).toMatchObject({ status: 'ok' })
    expect(JSON.stringify(row)).not.toMatch(/eyJ[\w-]+\./)
  })

  it('sends a client that declares URL elicitation to the link, waits until the person has connected, and answers with the result', async () => {
    const { plane, server, key } = await setup()
    const client = await connect(server, key, { capabilities: { elicitation: { url: {} } } })
    const asked: ElicitRequestURLParams[] = []
    const completed: string[] = []
    const followed: Array<Promise<ConnectRoundTrip>> = []
    client.setNotificationHandler(ElicitationCompleteNotificationSchema, (notification) => {
      completed.push(notification.params.elicitationId)
    })
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params as ElicitRequestURLParams)
      // The person opens the link after saying yes, as a client's browser would.
      followed.push(follow((request.params as ElicitRequestURLParams).url, 'oscar'))
      return { action: 'accept' }
    })
    const result = await call(client, 'test_profile')
    expect(asked).toEqual([
      {
        mode: 'url',
        url: expect.stringMatching(new RegExp(`^${server.url}/oauth/start\\?link=`)),
        elicitationId: expect.any(String),
        message: 'This needs a Test Service connection first: open the link and sign in there. The call runs as soon as it is connected.',
      },
    ])
    expect((await followed[0]!).status).toBe(302)
    expect(result.isError).toBeFalsy()
    expect(JSON.parse(result.content[0]!.text!)).toEqual({ sub: 'oscar', scope: expect.stringContaining('issues:read'), raw: '[REDACTED]' })
    expect(JSON.stringify([result, asked, completed])).not.toMatch(/eyJ[\w-]+\./)
    expect(completed).toEqual([asked[0]!.elicitationId])
    // Two calls: the refusal that sent the person to the link, then the call that ran.
    const rows = (await plane.audit.query({ skill: 'test_profile', limit: 10 })).items
    expect(rows.map((r) => r.status).sort()).toEqual(['error', 'ok'])
  })

  it('answers needs_auth with the link when the person declines, and when they do not connect in time', async () => {
    const { server, key } = await setup({ waitTimeoutMs: 300 })
    const client = await connect(server, key, { capabilities: { elicitation: { url: {} } } })
    const actions: Array<'decline' | 'cancel' | 'accept'> = ['decline', 'cancel', 'accept']
    const completed: string[] = []
    client.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) => {
      completed.push(n.params.elicitationId)
    })
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: actions.shift()! }))
    for (let i = 0; i < 3; i++) {
      const refused = await call(client, 'test_profile')
      expect(refused).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: expect.stringMatching(/^needs_auth: /) }, { type: 'resource_link' }],
        _meta: { 'skillplane/error': 'needs_auth', 'skillplane/authorizationUrl': expect.any(String) },
      })
    }
    expect(actions).toEqual([])
    expect(completed).toEqual([])
  })

  it('answers a client that fails the elicitation with the link', async () => {
    const { server, key } = await setup()
    const client = await connect(server, key, { capabilities: { elicitation: { url: {} } } })
    let tried = 0
    client.setRequestHandler(ElicitRequestSchema, async () => {
      tried++
      throw new Error('this client cannot open links')
    })
    expect(await call(client, 'test_profile')).toMatchObject({
      isError: true,
      _meta: { 'skillplane/error': 'needs_auth', 'skillplane/authorizationUrl': expect.any(String) },
    })
    expect(tried).toBe(1)
  })
})
