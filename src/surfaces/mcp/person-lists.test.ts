import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js'
import { databases, waitFor } from '../../test-support/databases.js'
import { admin, openTestPlane } from '../../test-support/fixtures.js'
import { startTestIdentityProvider, type TestIdentityProvider } from '../../test-support/identity-provider.js'
import { connectInBrowser } from '../../test-support/oauth-service.js'
import { startOAuthMcpServer } from '../../test-support/oauth-mcp-server.js'
import { postAs } from '../../test-support/post-as.js'
import { startHttpServer, type HttpServer } from '../http/index.js'

const LOW_LEVEL = join(import.meta.dirname, '../../sources/mcp/fixtures/low-level-resource-server.mjs')

let idp: TestIdentityProvider
beforeAll(async () => {
  idp = await startTestIdentityProvider()
})
afterAll(async () => idp?.close())

/** Connect `who`'s account to the per-person server "secured" (as in a browser), and wait until their calls reach it. */
async function connectAccount(server: HttpServer, key: string, who: string): Promise<void> {
  const post = (path: string, body: unknown) => postAs<{ ok: boolean; authorizationUrl?: string }>(server.url, key, path, body)
  const link = await post(`/api/connections/${encodeURIComponent('mcp:secured')}/authorize`, {})
  await connectInBrowser(link.authorizationUrl!, (url) => idp.signIn(url, who))
  // The first call lists the server's tools (and with them its read and prompt skills), then the person's resources and prompts.
  await waitFor(async () => (await post('/api/skills/secured_whoami/invoke', { input: {} })).ok)
  await waitFor(async () => (await post('/api/skills/secured_get_prompt/invoke', { input: { name: `${who}_digest` } })).ok)
}

const mine = (who: string) => ({
  inbox: `private://${who}/inbox`,
  template: `private://${who}/notes/{n}`,
  prompts: [`secured_${who}_brief`, `secured_${who}_digest`],
})

describe.each(databases)("a per-person server's resources and prompts on /mcp ($name)", (database) => {
  it('are listed, read, got, completed and subscribed to by their own person only, behind the read and prompt skills', async () => {
    const secured = await startOAuthMcpServer({ issuer: idp.issuer, personal: true })
    const plane = await openTestPlane(database, { mcpServers: [{ name: 'secured', url: secured.url, oauth: {}, agents: ['Helper'] }] })
    const server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    const clients: Client[] = []
    try {
      const key = async (name: string, role: 'operator' | 'agent', agentId?: string) =>
        (await plane.people.keys.create({ name, role, agentId }, plane.now())).key
      const [alice, carol, bob, helper] = [
        await key('alice', 'operator'),
        await key('carol', 'operator'),
        await key('bob', 'operator'),
        await key('helper-key', 'agent', 'helper'),
      ]
      await connectAccount(server, alice, 'alice')
      await connectAccount(server, carol, 'carol')
      const connect = async (k: string) => {
        const client = new Client({ name: 'person-lists', version: '1.0.0' })
        await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${k}` } } }))
        clients.push(client)
        const updates: string[] = []
        client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri))
        return { client, updates }
      }
      const [a, c, b, h] = [await connect(alice), await connect(carol), await connect(bob), await connect(helper)]
      const seen = async (client: Client) => ({
        resources: (await client.listResources()).resources.map((r) => r.uri).filter((uri) => uri.startsWith('private:')),
        templates: (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate),
        prompts: (await client.listPrompts()).prompts.map((p) => p.name).sort(),
      })
      expect(await seen(a.client)).toEqual({ resources: [mine('alice').inbox], templates: [mine('alice').template], prompts: mine('alice').prompts })
      expect(await seen(c.client)).toEqual({ resources: [mine('carol').inbox], templates: [mine('carol').template], prompts: mine('carol').prompts })
      // Bob has not connected his account (nothing of his to list); an agent's own key acts for nobody.
      expect(await seen(b.client)).toEqual({ resources: [], templates: [], prompts: [] })
      expect(await seen(h.client)).toEqual({ resources: [], templates: [], prompts: [] })

      // Alice reads and gets hers, each an audited call of the server's skill.
      const inbox = await a.client.readResource({ uri: mine('alice').inbox })
      expect(inbox.contents).toEqual([{ uri: mine('alice').inbox, text: 'mail of alice' }])
      expect((await a.client.readResource({ uri: 'private://alice/notes/7' })).contents).toEqual([{ uri: 'private://alice/notes/7', text: 'note 7 of alice' }])
      const brief = await a.client.getPrompt({ name: 'secured_alice_brief', arguments: { topic: 'alice-news' } })
      expect(brief.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'brief of alice on alice-news' } }])
      const rows = (await plane.audit.query({ caller: 'alice', limit: 20 })).items
      expect(rows.filter((r) => r.skill !== 'secured_whoami').map((r) => [r.skill, r.status, r.callId])).toEqual(
        expect.arrayContaining([
          ['secured_read_resource', 'ok', inbox._meta!['skillplane/callId']],
          ['secured_get_prompt', 'ok', brief._meta!['skillplane/callId']],
        ]),
      )

      // Completions come from the person's own session.
      const complete = (client: Client, ref: Parameters<Client['complete']>[0]['ref'], name: string, value: string) =>
        client.complete({ ref, argument: { name, value } }).then(
          (r) => r.completion.values,
          (e: { code: number; message: string }) => ({ code: e.code, message: e.message }),
        )
      expect(await complete(a.client, { type: 'ref/resource', uri: mine('alice').template }, 'n', 'alice-')).toEqual(['alice-news', 'alice-sport'])
      expect(await complete(a.client, { type: 'ref/prompt', name: 'secured_alice_brief' }, 'topic', 'alice-s')).toEqual(['alice-sport'])

      // Carol can neither read, get, complete nor subscribe to Alice's: for her they don't exist.
      const refused = async (promise: Promise<unknown>) =>
        promise.then(
          () => 'answered',
          (e: { code: number }) => e.code,
        )
      expect({
        read: await refused(c.client.readResource({ uri: mine('alice').inbox })),
        readMatched: await refused(c.client.readResource({ uri: 'private://alice/notes/7' })),
        get: await refused(c.client.getPrompt({ name: 'secured_alice_digest' })),
        completeTemplate: await refused(c.client.complete({ ref: { type: 'ref/resource', uri: mine('alice').template }, argument: { name: 'n', value: '' } })),
        completePrompt: await refused(c.client.complete({ ref: { type: 'ref/prompt', name: 'secured_alice_brief' }, argument: { name: 'topic', value: '' } })),
        subscribe: await refused(c.client.subscribeResource({ uri: mine('alice').inbox })),
        agentSubscribe: await refused(h.client.subscribeResource({ uri: mine('alice').inbox })),
      }).toEqual({
        read: -32002,
        readMatched: -32002,
        get: -32602,
        completeTemplate: -32602,
        completePrompt: -32602,
        subscribe: -32002,
        agentSubscribe: -32002,
      })

      // Subscriptions go through each person's own session: Alice hears her inbox's update, Carol her own only.
      await a.client.subscribeResource({ uri: mine('alice').inbox })
      await c.client.subscribeResource({ uri: mine('carol').inbox })
      expect(await a.client.callTool({ name: 'secured_touch', arguments: {} })).toMatchObject({ content: [{ type: 'text', text: 'sent' }] })
      await waitFor(() => a.updates.includes(mine('alice').inbox))
      expect(await c.client.callTool({ name: 'secured_touch', arguments: {} })).toMatchObject({ content: [{ type: 'text', text: 'sent' }] })
      await waitFor(() => c.updates.includes(mine('carol').inbox))
      expect({ alice: a.updates, carol: c.updates }).toEqual({ alice: [mine('alice').inbox], carol: [mine('carol').inbox] })

      // A change of a person's own list is announced to their own sessions only.
      const listChanges = { alice: [] as string[], carol: [] as string[] }
      for (const [client, heard] of [
        [a.client, listChanges.alice],
        [c.client, listChanges.carol],
      ] as const) {
        client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void heard.push('resources'))
        client.setNotificationHandler(PromptListChangedNotificationSchema, () => void heard.push('prompts'))
      }
      await a.client.callTool({ name: 'secured_add_note', arguments: {} })
      // At least both (an extra one fails the equality below rather than leaving this wait spinning).
      await waitFor(() => listChanges.alice.length >= 2)
      expect(await seen(a.client)).toMatchObject({
        resources: [mine('alice').inbox, 'private://alice/extra'],
        prompts: [...mine('alice').prompts, 'secured_alice_extra'],
      })
      await c.client.callTool({ name: 'secured_add_note', arguments: {} })
      // Once Carol's lists show her additions, her changes were sent: an update sent after them closes her stream's account.
      await waitFor(async () => {
        const { resources, prompts } = await seen(c.client)
        return resources.includes('private://carol/extra') && prompts.includes('secured_carol_extra')
      })
      const heard = c.updates.length
      await c.client.callTool({ name: 'secured_touch', arguments: {} })
      await waitFor(() => c.updates.length > heard)
      // Her own changes only: Alice's were sent before hers.
      expect({ alice: listChanges.alice.sort(), carol: listChanges.carol.sort() }).toEqual({ alice: ['prompts', 'resources'], carol: ['prompts', 'resources'] })

      // Without the read and prompt skills (a DENY), Alice's session lists none of hers and may complete or subscribe to none.
      const heardBefore = listChanges.alice.length
      const denied = await Promise.all(
        ['secured_read_resource', 'secured_get_prompt'].map((skill) =>
          plane.policies.set({ skill, level: 'user', subject: 'alice', decision: 'DENY' }, admin, plane.now()),
        ),
      )
      // Both her lists changed with the policy: she is told so.
      await waitFor(() => ['resources', 'prompts'].every((kind) => listChanges.alice.slice(heardBefore).includes(kind)))
      expect(await seen(a.client)).toEqual({ resources: [], templates: [], prompts: [] })
      expect({
        completeTemplate: await refused(a.client.complete({ ref: { type: 'ref/resource', uri: mine('alice').template }, argument: { name: 'n', value: '' } })),
        completePrompt: await refused(a.client.complete({ ref: { type: 'ref/prompt', name: 'secured_alice_brief' }, argument: { name: 'topic', value: '' } })),
        subscribe: await refused(a.client.subscribeResource({ uri: 'private://alice/notes/1' })),
      }).toEqual({ completeTemplate: -32602, completePrompt: -32602, subscribe: -32002 })
      for (const policy of denied) if (policy.ok) await plane.policies.clear(policy.policy.id, admin)
    } finally {
      await Promise.all(clients.map((client) => client.close()))
      await server.close()
      await plane.close()
      await secured.close()
    }
  })
  it("keeps a person's subscriptions across their upstream sessions: after connecting again, the new session holds them", async () => {
    const secured = await startOAuthMcpServer({ issuer: idp.issuer, personal: true })
    const plane = await openTestPlane(database, { mcpServers: [{ name: 'secured', url: secured.url, oauth: {}, agents: ['Helper'] }] })
    const server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    const client = new Client({ name: 'person-lists', version: '1.0.0' })
    try {
      const alice = (await plane.people.keys.create({ name: 'alice', role: 'operator' }, plane.now())).key
      await connectAccount(server, alice, 'alice')
      await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${alice}` } } }))
      const updates: string[] = []
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri))
      await client.subscribeResource({ uri: mine('alice').inbox })
      const touch = async () => ((await client.callTool({ name: 'secured_touch', arguments: {} })) as { content: Array<{ text: string }> }).content[0]!.text
      expect(await touch()).toBe('sent')
      await waitFor(() => updates.length === 1)
      // Connecting her account again closes her upstream session; the next one holds her subscription once it is sent again.
      await connectAccount(server, alice, 'alice')
      await waitFor(async () => (await touch()) === 'sent')
      await waitFor(() => updates.length === 2)
      expect(updates).toEqual([mine('alice').inbox, mine('alice').inbox])
    } finally {
      await client.close()
      await server.close()
      await plane.close()
      await secured.close()
    }
  })

  it("leaves out of a person's lists what a shared server's template takes (reads of it go there): her listing says where each URI is read; a server denied to her takes nothing of hers", async () => {
    const secured = await startOAuthMcpServer({ issuer: idp.issuer, personal: true })
    const plane = await openTestPlane(database, {
      mcpServers: [
        { name: 'secured', url: secured.url, oauth: {}, agents: ['Helper'] },
        // A shared server whose one template matches every private: URI, Alice's own among them.
        { name: 'wiki', command: process.execPath, args: [LOW_LEVEL], env: { LISTS: 'templates', TEMPLATE: 'private://{+path}' } },
        // A shared server that lists Alice's inbox, denied to her.
        { name: 'hidden', command: process.execPath, args: [LOW_LEVEL], env: { LISTS: 'resources', RESOURCE: 'private://alice/inbox' } },
      ],
    })
    const deny = (skill: string) => plane.policies.set({ skill, level: 'user', subject: 'alice', decision: 'DENY' }, admin, plane.now())
    const server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    const client = new Client({ name: 'person-lists', version: '1.0.0' })
    try {
      const alice = (await plane.people.keys.create({ name: 'alice', role: 'operator' }, plane.now())).key
      await connectAccount(server, alice, 'alice')
      await waitFor(() => plane.sources.mcpServers().every((s) => s.name === 'secured' || s.state === 'connected'))
      await deny('hidden_read_resource')
      await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${alice}` } } }))
      // Her inbox and her notes template are the wiki's to read: listed as hers, they would be read from another server.
      const seen = async () => ({
        resources: (await client.listResources()).resources.map((r) => r.uri).filter((uri) => uri.startsWith('private:')),
        templates: (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate),
      })
      expect(await seen()).toEqual({ resources: [], templates: ['private://{+path}'] })
      expect((await client.readResource({ uri: mine('alice').inbox })).contents).toEqual([
        { uri: mine('alice').inbox, mimeType: 'text/plain', text: `low-level read of ${mine('alice').inbox}` },
      ])

      // Without the wiki, hers are listed and read as hers: what a server denied to her lists (her inbox) takes nothing of hers, nor shows through.
      await deny('wiki_read_resource')
      await waitFor(async () => (await seen()).templates.includes(mine('alice').template))
      expect(await seen()).toEqual({ resources: [mine('alice').inbox], templates: [mine('alice').template] })
      expect((await client.readResource({ uri: mine('alice').inbox })).contents).toEqual([{ uri: mine('alice').inbox, text: 'mail of alice' }])
    } finally {
      await client.close()
      await server.close()
      await plane.close()
      await secured.close()
    }
  })
})
