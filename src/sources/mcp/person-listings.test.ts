import { afterAll, beforeAll, expect, it } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { databases, waitFor } from '../../test-support/databases.js'
import { openTestPlane } from '../../test-support/fixtures.js'
import { startTestIdentityProvider, type TestIdentityProvider } from '../../test-support/identity-provider.js'
import { connectInBrowser } from '../../test-support/oauth-service.js'
import { startOAuthMcpServer } from '../../test-support/oauth-mcp-server.js'
import { postAs } from '../../test-support/post-as.js'
import { startHttpServer } from '../../surfaces/http/index.js'

let idp: TestIdentityProvider
beforeAll(async () => {
  idp = await startTestIdentityProvider()
})
afterAll(async () => idp?.close())

it("a per-person server's resources and prompts are each person's own: never listed to others, read only by their owner", async () => {
  const secured = await startOAuthMcpServer({ issuer: idp.issuer, personal: true })
  const plane = await openTestPlane(databases[0]!, { mcpServers: [{ name: 'secured', url: secured.url, oauth: {}, agents: ['Helper'] }] })
  const server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
  const clients: Client[] = []
  try {
    const key = async (name: string) => (await plane.people.keys.create({ name, role: 'operator' }, plane.now())).key
    const [carol, alice] = [await key('carol'), await key('alice')]
    const post = (k: string, path: string, body: unknown) => postAs(server.url, k, path, body)
    const read = async (k: string, uri: string) => {
      const result = await post(k, '/api/skills/secured_read_resource/invoke', { input: { uri } })
      return result.ok ? (result.data as { contents: Array<{ text: string }> }).contents.map((c) => c.text) : result.error!.code
    }
    for (const [k, who] of [
      [carol, 'carol'],
      [alice, 'alice'],
    ] as const) {
      // Not connected yet: a read is for them to connect first, not a URI that doesn't exist.
      if (who === 'alice') expect(await read(alice, 'private://alice/inbox')).toBe('needs_auth')
      const link = (await post(k, `/api/connections/${encodeURIComponent('mcp:secured')}/authorize`, {})) as unknown as { authorizationUrl: string }
      await connectInBrowser(link.authorizationUrl, (url) => idp.signIn(url, who))
      // Each person's first call opens their own session, which lists their resources and prompts (the first connection lists the tools).
      await waitFor(async () => (await post(k, '/api/skills/secured_whoami/invoke', { input: {} })).ok)
      // The resources are listed after the tools: Carol reads her own once they are.
      if (who === 'carol') await waitFor(async () => Array.isArray(await read(carol, 'private://carol/inbox')))
    }
    expect(secured.sessions().sort()).toEqual(['alice', 'carol'])
    const mcp = async (k: string) => {
      const client = new Client({ name: 'person-listings', version: '1.0.0' })
      await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${k}` } } }))
      clients.push(client)
      return client
    }
    const prompt = async (k: string, name: string) => {
      const result = await post(k, '/api/skills/secured_get_prompt/invoke', { input: { name } })
      return result.ok ? (result.data as { messages: Array<{ content: { text: string } }> }).messages.map((m) => m.content.text) : result.error!.code
    }
    for (const [k, who] of [
      [carol, 'carol'],
      [alice, 'alice'],
    ] as const) {
      const client = await mcp(k)
      const tools = (await client.listTools()).tools
      // The skills are there (so the lists below are not empty for want of access), and no description names anyone's prompts.
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['secured_read_resource', 'secured_get_prompt']))
      expect(JSON.stringify(tools)).not.toMatch(/carol_digest|alice_digest/)
      // /mcp lists each person's own, never the other's.
      expect((await client.listResources()).resources.map((r) => r.uri).filter((uri) => uri.startsWith('private:'))).toEqual([`private://${who}/inbox`])
      expect((await client.listPrompts()).prompts.map((p) => p.name).filter((name) => name.includes('digest'))).toEqual([`secured_${who}_digest`])
    }
    expect({
      carolsOwn: await read(carol, 'private://carol/inbox'),
      alicesOwn: await read(alice, 'private://alice/inbox'),
      carolReadsAlices: await read(carol, 'private://alice/inbox'),
      carolsPrompt: await prompt(carol, 'carol_digest'),
      carolGetsAlices: await prompt(carol, 'alice_digest'),
    }).toEqual({
      carolsOwn: ['mail of carol'],
      alicesOwn: ['mail of alice'],
      carolReadsAlices: 'not_found',
      carolsPrompt: ['digest of carol'],
      carolGetsAlices: 'invalid_input',
    })
  } finally {
    await Promise.all(clients.map((c) => c.close()))
    await server.close()
    await plane.close()
    await secured.close()
  }
})
