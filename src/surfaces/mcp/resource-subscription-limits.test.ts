import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js'
import { databases, waitFor } from '../../test-support/databases.js'
import { admin, openTestPlane } from '../../test-support/fixtures.js'
import type { Skillplane } from '../../agents/index.js'
import { startHttpServer, type HttpServer } from '../http/start-http-server.js'
import { MAX_SUBSCRIPTIONS } from './imported-resources.js'

const NOTES = join(import.meta.dirname, '../../sources/mcp/fixtures/resource-server.mjs')

let plane: Skillplane
let server: HttpServer
let key: string
const clients: Client[] = []

beforeAll(async () => {
  plane = await openTestPlane(databases[0]!, { mcpServers: [{ name: 'notes', command: process.execPath, args: [NOTES] }] })
  await waitFor(() => plane.sources.mcpServers()[0]!.state === 'connected')
  server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
  key = (await plane.people.keys.create({ name: 'root', role: 'admin' }, plane.now())).key
})
afterAll(async () => {
  for (const client of clients) await client.close().catch(() => {})
  await server?.close()
  await plane?.close()
})

async function connect(): Promise<Client> {
  const client = new Client({ name: 'subscriber', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }))
  clients.push(client)
  return client
}
/** What the server holds subscribed, one entry per resources/subscribe it received. */
const upstream = async () => {
  const envelope = await plane.invoke('notes_subscribed', {}, { caller: admin })
  return envelope.ok ? (JSON.parse((envelope.data as { content: Array<{ text: string }> }).content[0]!.text) as string[]) : ['failed']
}

/** How many resources/unsubscribe the server refused. */
const refused = async () => {
  const envelope = await plane.invoke('notes_refused', {}, { caller: admin })
  return envelope.ok ? Number((envelope.data as { content: Array<{ text: string }> }).content[0]!.text) : -1
}

it(`refuses a session more than ${MAX_SUBSCRIPTIONS} subscriptions, naming the cap; one unsubscribed makes room`, async () => {
  const client = await connect()
  const pages = Array.from({ length: MAX_SUBSCRIPTIONS }, (_, i) => `note://pages/${i}`)
  for (let i = 0; i < pages.length; i += 50) await Promise.all(pages.slice(i, i + 50).map((uri) => client.subscribeResource({ uri })))
  await expect(client.subscribeResource({ uri: 'note://pages/over' })).rejects.toThrow(
    `this session holds ${MAX_SUBSCRIPTIONS} subscriptions, the most one session may; unsubscribe from one first`,
  )
  // Subscribing again to what it holds is no new subscription.
  await client.subscribeResource({ uri: 'note://pages/0' })
  await client.unsubscribeResource({ uri: 'note://pages/0' })
  await client.subscribeResource({ uri: 'note://pages/over' })
  // Another session has its own room.
  await (await connect()).subscribeResource({ uri: 'note://a' })
  // The session ends (DELETE /mcp): its subscriptions go with it.
  await (client.transport as StreamableHTTPClientTransport).terminateSession()
  await waitFor(async () => (await upstream()).length === 1)
})

it('holds the cap against subscribes that arrive together (a JSON-RPC batch): one fills the last slot, the rest are refused', async () => {
  const client = await connect()
  const held = Array.from({ length: MAX_SUBSCRIPTIONS - 1 }, (_, i) => `note://pages/batch-${i}`)
  for (let i = 0; i < held.length; i += 50) await Promise.all(held.slice(i, i + 50).map((uri) => client.subscribeResource({ uri })))
  // The SDK client sends one request a POST; a batch has every subscribe in flight before any is held.
  const batch = Array.from({ length: 5 }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'resources/subscribe', params: { uri: `note://pages/late-${i}` } }))
  const response = await fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${key}`,
      'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
      'mcp-session-id': (client.transport as StreamableHTTPClientTransport).sessionId!,
    },
    body: JSON.stringify(batch),
  })
  const text = await response.text()
  // An event stream (one `data:` line an answer) or a JSON array.
  const answers = (
    text.trimStart().startsWith('[')
      ? JSON.parse(text)
      : text
          .split('\n')
          .filter((l) => l.startsWith('data:') && l.slice(5).trim())
          .map((l) => JSON.parse(l.slice(5)))
  ) as Array<{ result: object } | { error: { message: string } }>
  expect(
    answers
      .flat()
      .map((a) => ('result' in a ? 'held' : a.error.message.includes('the most one session may') ? 'capped' : a.error.message))
      .sort(),
  ).toEqual(['capped', 'capped', 'capped', 'capped', 'held'])
  await (client.transport as StreamableHTTPClientTransport).terminateSession()
})

it('forgets a subscription nobody listens to even when the server refuses the unsubscribe, and subscribes anew', async () => {
  const client = await connect()
  const before = (await upstream()).filter((uri) => uri === 'note://pages/sticky').length
  await client.subscribeResource({ uri: 'note://pages/sticky' })
  // The server refuses this unsubscribe: nothing listens any more, so skillplane holds nothing for it.
  const refusedBefore = await refused()
  await client.unsubscribeResource({ uri: 'note://pages/sticky' })
  await waitFor(async () => (await refused()) > refusedBefore)
  await client.subscribeResource({ uri: 'note://pages/sticky' })
  expect((await upstream()).filter((uri) => uri === 'note://pages/sticky').length - before).toBe(2)
})
