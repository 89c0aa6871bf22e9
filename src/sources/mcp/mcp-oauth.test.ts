import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { databases } from '../../test-support/databases.js'
import { openTestPlane } from '../../test-support/fixtures.js'
import { startTestIdentityProvider, type TestIdentityProvider } from '../../test-support/identity-provider.js'
import { startOAuthMcpServer, type OAuthMcpServer } from '../../test-support/oauth-mcp-server.js'
import { resolveConfig } from '../../config/index.js'
import type { Skillplane } from '../../agents/index.js'
import type { SkillplaneConfig } from '../../config/define-config.js'

const [sqlite] = databases

let idp: TestIdentityProvider
let upstream: OAuthMcpServer

beforeAll(async () => {
  idp = await startTestIdentityProvider()
  upstream = await startOAuthMcpServer({ issuer: idp.issuer })
})
afterAll(async () => {
  await upstream?.close()
  await idp?.close()
})

describe('MCP servers behind OAuth', () => {
  const planes: Skillplane[] = []
  afterEach(async () => {
    await Promise.all(planes.splice(0).map((p) => p.close()))
  })
  const open = async (config: SkillplaneConfig) => {
    const plane = await openTestPlane(sqlite!, config)
    planes.push(plane)
    return plane
  }

  it('checks a server’s oauth config, naming the field', async () => {
    const refused = async (server: object) =>
      ((await resolveConfig({ mcpServers: [server] } as never, { dataDir: '/tmp' }, 'c.ts').catch((e: Error) => e)) as Error).message
    expect(await refused({ name: 's', command: 'x', oauth: {} })).toBe('config c.ts: mcpServers[0].oauth: does not apply to a command server')
    expect(await refused({ name: 's', url: 'http://h/mcp', oauth: { clientSecret: { secret: 'S' } } })).toBe(
      'config c.ts: mcpServers[0].oauth.clientSecret: needs clientId (a client secret belongs to a client registered by hand)',
    )
    expect(await refused({ name: 's', url: 'http://h/mcp', oauth: { account: 'team' } })).toMatch(/^config c\.ts: mcpServers\[0\]\.oauth\.account: /)
    expect(await refused({ name: 's', url: 'http://h/mcp', oauth: { scopes: ['a b'] } })).toBe(
      'config c.ts: mcpServers[0].oauth.scopes[0]: a scope token (no spaces or quotes)',
    )
    expect(await refused({ name: 's', url: 'http://h/mcp', headers: { authorization: 'Bearer x' }, oauth: {} })).toBe(
      'config c.ts: mcpServers[0].headers: Authorization is sent by the oauth connection: remove it from headers',
    )
    const resolved = await resolveConfig({ mcpServers: [{ name: 's', url: 'http://h/mcp', oauth: {} }] }, { dataDir: '/tmp' }, 'c.ts')
    expect(resolved.mcpServers[0]).toMatchObject({ transport: 'http', oauth: { account: 'person' } })
  })

  it('says a server without oauth config that answers 401 with protected-resource metadata needs it, instead of guessing whose account', async () => {
    const plane = await open({ mcpServers: [{ name: 'secured', url: upstream.url, connectTimeoutMs: 5_000 }] })
    const [status] = plane.sources.mcpServers()
    expect(status).toMatchObject({
      state: 'down',
      reason:
        "can't connect: it requires OAuth (its 401 names protected-resource metadata): give it oauth: { account: 'person' } (each person connects their own account) or oauth: { account: 'service' } in the config",
    })
    expect(plane.skills.list().filter((s) => s.source === 'mcp')).toEqual([])
  })
})
