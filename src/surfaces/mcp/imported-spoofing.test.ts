import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { databases, tree, waitFor } from '../../test-support/databases.js'
import { admin, openTestPlane, testAgents } from '../../test-support/fixtures.js'
import type { Skillplane } from '../../agents/index.js'
import type { SkillplaneConfig } from '../../config/index.js'
import { startHttpServer, type HttpServer } from '../http/start-http-server.js'

const SPOOF = join(import.meta.dirname, '../../sources/mcp/fixtures/spoof-mcp-server.mjs')
const TOKEN = 'tok-9f3e2a11c4'

describe.each(databases)('an imported server that tries to overreach ($name)', (database) => {
  let plane: Skillplane
  let server: HttpServer
  let config: SkillplaneConfig
  let where: Awaited<ReturnType<typeof database.create>>
  const clients: Client[] = []
  beforeAll(async () => {
    const skills = tree({ 'hidden-guide/SKILL.md': '---\nname: hidden-guide\ndescription: Not for everyone\n---\n# Hidden\n' })
    config = {
      agents: [...testAgents!],
      skillDirs: [{ path: skills, agents: [] }],
      mcpServers: [{ name: 'spoof', command: process.execPath, args: [SPOOF], env: { SPOOF_TOKEN: { secret: 'SPOOF_TOKEN' } }, agents: ['Helper'] }],
    }
    where = await database.create()
    plane = await openTestPlane(database, config, where)
    await plane.values.secrets.set('SPOOF_TOKEN', TOKEN)
    await waitFor(() => plane.sources.mcpServers()[0]!.state === 'connected' && plane.sources.mcpResources().length === 1)
    server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
  })
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => {})
    await server?.close()
    await plane?.close()
  })
  const helperKey = async (name: string) => (await plane.people.keys.create({ name, role: 'agent', agentId: 'helper' }, plane.now())).key
  const connect = async (key?: string) => {
    const client = new Client({ name: 'spoof-test', version: '1' })
    const authorization = `Bearer ${key ?? (await helperKey(`helper-${clients.length}`))}`
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization } } }))
    clients.push(client)
    return client
  }

  it('refuses at listing the templates that catch skill: URIs, have no literal scheme or are costly to match, naming each', async () => {
    const { problems } = plane.sources.mcpServers()[0]!
    expect(problems).toEqual(
      expect.arrayContaining([
        'resource template "{scheme}://{+rest}": it does not start with a literal scheme (like "file:"); skipped',
        `resource template "SKILL://{name}": skill: URIs are skillplane's instruction skills; skipped`,
        'resource template "x://{+a}{+b}{+c}{+d}{+e}/z": its expressions {+a} and {+b} are adjacent; skipped',
      ]),
    )
    const client = await connect()
    const templates = async () => (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate).sort()
    // The key's tool list follows the catalog's sync.
    await waitFor(async () => (await templates()).length > 0)
    expect(await templates()).toEqual(['echo://{+rest}', 'fake://{name}', 'many://{n}'])
  })

  it('never sends a skill:// URI to the server: no subscription, no read, no relayed update', async () => {
    const client = await connect()
    const updates: string[] = []
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri))
    const uri = 'skill://hidden-guide/SKILL.md'
    const subscribed = await client.subscribeResource({ uri }).then(
      () => 'accepted',
      (e: Error) => e.message,
    )
    expect(subscribed).toContain('not found')
    const read = await client.callTool({ name: 'spoof_read_resource', arguments: { uri } })
    expect(read).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('has no resource') }] })
    const upstream = await plane.invoke('spoof_subscribed', {}, { caller: admin })
    expect(JSON.stringify(upstream)).not.toContain('skill://')
    // An update for it and then one for a URI the session did subscribe: only the latter arrives.
    await client.subscribeResource({ uri: 'echo://mine' })
    await plane.invoke('spoof_touch', { uris: [uri, 'echo://mine'] }, { caller: admin })
    await waitFor(() => updates.length > 0)
    expect(updates).toEqual(['echo://mine'])
  })

  it("refuses an answer that passes contents off as skillplane's skill: URIs", async () => {
    const client = await connect()
    const refused = await client.readResource({ uri: 'fake://guide' }).then(
      () => 'served',
      (e: Error) => e.message,
    )
    expect(refused).toContain('answered the read of "fake://guide" with "skill://hidden-guide/SKILL.md"')
  })

  it('scrubs its credential from completion values and from what it lists', async () => {
    const client = await connect()
    const answer = await client.complete({ ref: { type: 'ref/resource', uri: 'echo://{+rest}' }, argument: { name: 'rest', value: '' } })
    expect(answer.completion.values).toHaveLength(2)
    expect(answer.completion.values[1]).toBe('plain')
    const listed = JSON.stringify([await client.listResources(), await client.listResourceTemplates(), await client.listPrompts(), answer])
    expect(listed).toContain('mail://inbox')
    expect(listed).not.toContain(TOKEN)
  })

  it('cuts more than 100 completion values to 100, with the total and hasMore', async () => {
    const client = await connect()
    const answer = await client.complete({ ref: { type: 'ref/resource', uri: 'many://{n}' }, argument: { name: 'n', value: '' } })
    expect(answer.completion).toMatchObject({ total: 150, hasMore: true })
    expect(answer.completion.values).toHaveLength(100)
  })

  it('refuses a URI over 2 KB before matching any template', async () => {
    const client = await connect()
    const uri = `x://${'a'.repeat(3000)}/y`
    const read = await client.readResource({ uri }).then(
      () => 'served',
      (e: Error) => e.message,
    )
    expect(read).toContain('the URI is 3006 characters long; at most 2048 are taken')
    const subscribed = await client.subscribeResource({ uri }).then(
      () => 'accepted',
      (e: Error) => e.message,
    )
    expect(subscribed).toContain('at most 2048 are taken')
    const called = await plane.invoke('spoof_read_resource', { uri }, { caller: admin })
    expect(called).toMatchObject({ ok: false, error: { code: 'invalid_input', message: expect.stringContaining('at most 2048') } })
  })

  it('passes what the server logs while reading a resource to the session that reads it', async () => {
    const client = await connect()
    const logs: unknown[] = []
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params.data))
    await client.setLoggingLevel('debug')
    await client.readResource({ uri: 'echo://y/z' })
    await waitFor(() => logs.includes('while reading'))
  })

  it('stops a revoked key hearing updates on its open session, which ends', async () => {
    const key = await helperKey('revoked-key')
    const revoked = await connect(key)
    const kept = await connect()
    const heard: Record<string, string[]> = { revoked: [], kept: [] }
    revoked.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void heard.revoked!.push(n.params.uri))
    kept.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void heard.kept!.push(n.params.uri))
    await revoked.subscribeResource({ uri: 'echo://revoke/me' })
    await kept.subscribeResource({ uri: 'echo://revoke/me' })
    expect(await plane.people.keys.revoke('revoked-key', plane.now())).toBe(1)
    await plane.invoke('spoof_touch', { uris: ['echo://revoke/me', 'echo://after'] }, { caller: admin })
    await kept.subscribeResource({ uri: 'echo://after' })
    await plane.invoke('spoof_touch', { uris: ['echo://after'] }, { caller: admin })
    // The control session hears both; by then the revoked one would have heard the first.
    await waitFor(() => heard.kept!.includes('echo://after'))
    expect(heard).toEqual({ revoked: [], kept: ['echo://revoke/me', 'echo://after'] })
  })

  it.runIf(database.name === 'postgres')(
    "ends a key's open session within about a second of its revocation on another manager sharing the database",
    async () => {
      // The same composition on the same database: a second manager, where the key is revoked.
      const peer = await openTestPlane(database, config, where)
      try {
        const revoked = await connect(await helperKey('revoked-elsewhere'))
        const kept = await connect()
        const heard = { revoked: 0, kept: 0 }
        revoked.setNotificationHandler(ResourceUpdatedNotificationSchema, () => void heard.revoked++)
        kept.setNotificationHandler(ResourceUpdatedNotificationSchema, () => void heard.kept++)
        await revoked.subscribeResource({ uri: 'echo://elsewhere' })
        await kept.subscribeResource({ uri: 'echo://elsewhere' })
        const touch = () => plane.invoke('spoof_touch', { uris: ['echo://elsewhere'] }, { caller: admin })
        await touch()
        await waitFor(() => heard.revoked === 1 && heard.kept === 1)
        const sessionId = (revoked.transport as StreamableHTTPClientTransport).sessionId!
        expect(await plane.people.mcpSessions.find(sessionId)).toBeDefined()

        // The end of its stream reaches the client as an error (a failed reconnect, or a dropped stream), after everything sent on it.
        let streamEnded = false
        revoked.onerror = () => void (streamEnded = true)
        revoked.onclose = () => void (streamEnded = true)
        expect(await peer.people.keys.revoke('revoked-elsewhere', peer.now())).toBe(1)
        // Nothing tells this manager: its next update to the session re-checks the key (at most once a second) and ends it.
        await waitFor(async () => {
          await touch()
          return (await plane.people.mcpSessions.find(sessionId)) === undefined
        })
        // An update already on its way to the revoked client lands before the count is taken, not after.
        await waitFor(() => streamEnded)
        const after = { ...heard }
        await touch()
        await waitFor(() => heard.kept > after.kept)
        expect(heard.revoked).toBe(after.revoked)
      } finally {
        await peer.close()
      }
    },
  )
})
