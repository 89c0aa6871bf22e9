import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ResourceListChangedNotificationSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { databases, tempDir, tree, waitFor } from '../../test-support/databases.js'
import { admin, openTestPlane, testAgents } from '../../test-support/fixtures.js'
import type { Skillplane } from '../../agents/index.js'
import { startHttpServer, type HttpServer } from '../http/start-http-server.js'

const EVERYTHING = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js')
const STATIC = 'demo://resource/static/document/instructions.md'
const DYNAMIC = 'demo://resource/dynamic/text/1'
const SKILL_MD = 'skill://deploy-guide/SKILL.md'

/** A client of /mcp that records the resource updates and list changes it hears. */
interface Session {
  client: Client
  updates: string[]
  listChanges: number
}

describe.each(databases)("imported MCP servers' resources on /mcp ($name)", (database) => {
  let plane: Skillplane
  let server: HttpServer
  let pidFile: string
  let stopFile: string
  const keys: Record<string, string> = {}
  const sessions: Client[] = []

  beforeAll(async () => {
    const skills = tree({ 'deploy-guide/SKILL.md': '---\nname: deploy-guide\ndescription: Ship safely\n---\n# Deploy\n' })
    const dir = tempDir('skillplane-everything-')
    pidFile = join(dir, 'pid')
    stopFile = join(dir, 'stop')
    plane = await openTestPlane(database, {
      agents: [...testAgents!, { name: 'Carol', aliases: [], description: 'Loses the resources' }],
      skillDirs: [{ path: skills, agents: ['Helper', 'Carol'] }],
      mcpServers: [
        // Through a shell that records the server's pid (exec keeps it), so the test can kill it; it fails while the stop file exists.
        {
          name: 'everything',
          command: 'sh',
          args: ['-c', `[ -e '${stopFile}' ] && exit 1; echo $$ > '${pidFile}'; exec '${process.execPath}' '${EVERYTHING}' stdio`],
          agents: ['Helper', 'Carol'],
        },
        // The same server again, later in the config: every URI it lists is the first one's.
        { name: 'mirror', command: process.execPath, args: [EVERYTHING, 'stdio'] },
      ],
    })
    server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    const key = async (name: string, role: 'admin' | 'agent', agentId?: string) => (await plane.people.keys.create({ name, role, agentId }, plane.now())).key
    keys.root = await key('root', 'admin')
    keys.helper = await key('helper-key', 'agent', 'helper')
    keys.carol = await key('carol-key', 'agent', 'carol')
    keys.other = await key('other-key', 'agent', 'other')
  })
  afterAll(async () => {
    for (const client of sessions) await client.close().catch(() => {})
    await server?.close()
    await plane?.close()
  })

  async function connect(key: string): Promise<Session> {
    const client = new Client({ name: 'resource-browser', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }))
    sessions.push(client)
    const session: Session = { client, updates: [], listChanges: 0 }
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void session.updates.push(n.params.uri))
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void session.listChanges++)
    // A round trip, so its event stream (where updates arrive) is open before anything is sent on it.
    await client.listResources()
    return session
  }

  const toggleUpdates = async () => {
    const envelope = await plane.invoke('everything_toggle_subscriber_updates', {}, { caller: admin })
    expect(envelope.ok).toBe(true)
    return envelope.ok ? JSON.stringify(envelope.data) : ''
  }
  /** Toggle the server's simulated updates until they are on: each start sends one update per subscribed URI at once. */
  const sendUpdates = async () => {
    if ((await toggleUpdates()).includes('Stopped')) await toggleUpdates()
  }

  it('lists resources and templates verbatim, reads them through the read skill (audited), and refuses URIs no server serves', async () => {
    const { client } = await connect(keys.root!)
    expect(client.getServerCapabilities()).toMatchObject({ resources: { listChanged: true, subscribe: true } })
    const { resources } = await client.listResources()
    const uris = resources.map((r) => r.uri)
    expect(uris).toContain(SKILL_MD)
    expect(uris).toContain(STATIC)
    // The mirror lists the same URIs: each is served once, from the first server in the config.
    expect(new Set(uris).size).toBe(uris.length)
    // After the instruction skills' own template.
    expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      'skill://{skill}/{+path}',
      'demo://resource/dynamic/text/{resourceId}',
      'demo://resource/dynamic/blob/{resourceId}',
    ])
    const mirror = plane.sources.mcpServers().find((s) => s.name === 'mirror')!
    expect(mirror.skills).toContain('mirror_read_resource')
    expect(mirror.problems).toContain(`resource "${STATIC}" is also listed by MCP server "everything", earlier in the config: that one is served; skipped`)

    const first = await client.readResource({ uri: STATIC })
    expect(first._meta).toEqual({ 'skillplane/callId': expect.stringMatching(/^[0-9A-Z]{26}$/) })
    expect(first.contents).toEqual([{ uri: STATIC, mimeType: 'text/markdown', text: readFileSync(join(EVERYTHING, '../docs/instructions.md'), 'utf8') }])
    expect((await client.readResource({ uri: 'demo://resource/dynamic/text/3' })).contents[0]).toMatchObject({
      uri: 'demo://resource/dynamic/text/3',
      text: expect.stringMatching(/^Resource 3: This is a plaintext resource/),
    })
    const blob = (await client.readResource({ uri: 'demo://resource/dynamic/blob/2' })).contents[0] as { blob: string }
    expect(Buffer.from(blob.blob, 'base64').toString()).toMatch(/^Resource 2: This is a base64 blob/)
    // Instruction skills' resources are still there.
    expect((await client.readResource({ uri: SKILL_MD })).contents[0]).toMatchObject({ text: expect.stringContaining('# Deploy') })

    // A URI no server lists or matches is not found before any call; the server's own refusal comes back as an error.
    expect(await client.readResource({ uri: 'demo://resource/nope' }).catch((e) => e)).toMatchObject({
      code: -32002,
      message: expect.stringContaining('resource "demo://resource/nope" not found'),
      data: { uri: 'demo://resource/nope' },
    })
    expect(await client.readResource({ uri: 'demo://resource/dynamic/text/abc' }).catch((e) => e)).toMatchObject({
      code: -32603,
      message: expect.stringContaining('executor_error'),
    })
    // Called directly, the read skill refuses a URI its server neither lists nor matches, naming it, without asking the server.
    expect(await plane.invoke('everything_read_resource', { uri: 'demo://resource/nope' }, { caller: admin })).toMatchObject({
      ok: false,
      error: {
        code: 'not_found',
        message: expect.stringContaining(
          'MCP server "everything" has no resource "demo://resource/nope": it neither lists it nor has a template that matches it',
        ),
      },
    })

    const rows = (await plane.audit.query({ skill: 'everything_read_resource', caller: 'root', limit: 20 })).items
    expect(rows.map((r) => r.callId)).toContain(first._meta!['skillplane/callId'])
    expect(rows.map((r) => [r.status, (r.input as { uri: string }).uri]).sort()).toEqual(
      [
        ['ok', STATIC],
        ['ok', 'demo://resource/dynamic/text/3'],
        ['ok', 'demo://resource/dynamic/blob/2'],
        ['error', 'demo://resource/dynamic/text/abc'],
      ].sort(),
    )
  })

  it('shows a caller without the read skill none of them, and answers it as for a URI that does not exist', async () => {
    const other = await connect(keys.other!)
    expect((await other.client.listResources()).resources).toEqual([])
    expect((await other.client.listResourceTemplates()).resourceTemplates).toEqual([])
    for (const uri of [STATIC, DYNAMIC]) {
      expect(await other.client.readResource({ uri }).catch((e) => e)).toMatchObject({ code: -32002, data: { uri } })
      expect(await other.client.subscribeResource({ uri }).catch((e) => e)).toMatchObject({ code: -32002, data: { uri } })
    }
    expect((await plane.audit.query({ caller: 'other-key', limit: 5 })).items).toEqual([])
    // The agent bound to the server sees its resources (and the mirror's read skill, unbound, none).
    const helper = await connect(keys.helper!)
    const uris = (await helper.client.listResources()).resources.map((r) => r.uri)
    expect(uris).toContain(STATIC)
    expect((await helper.client.readResource({ uri: DYNAMIC })).contents[0]).toMatchObject({ uri: DYNAMIC })
  })

  it("forwards a server's updates only to the sessions that subscribed and may still read, until they unsubscribe", async () => {
    const a = await connect(keys.root!)
    const b = await connect(keys.helper!)
    const c = await connect(keys.carol!)
    await a.client.subscribeResource({ uri: STATIC })
    await a.client.subscribeResource({ uri: DYNAMIC })
    await b.client.subscribeResource({ uri: DYNAMIC })
    await c.client.subscribeResource({ uri: DYNAMIC })
    await c.client.subscribeResource({ uri: SKILL_MD })
    expect(await a.client.subscribeResource({ uri: 'demo://resource/nope' }).catch((e) => e)).toMatchObject({ code: -32002 })

    await sendUpdates()
    // The server sends STATIC before DYNAMIC: b, which heard DYNAMIC, would have heard STATIC first.
    await waitFor(() => a.updates.includes(STATIC) && a.updates.includes(DYNAMIC) && b.updates.includes(DYNAMIC) && c.updates.includes(DYNAMIC))
    expect(b.updates).not.toContain(STATIC)

    // Carol loses the read skill: its updates stop, though it subscribed.
    const skillUpdates = () => c.updates.filter((u) => u === SKILL_MD).length
    const before = skillUpdates()
    const denied = await plane.policies.set({ skill: 'everything_read_resource', level: 'agent', subject: 'carol', decision: 'DENY' }, admin, plane.now())
    // The session has heard of the change (its instruction skill's update) once it applies it.
    await waitFor(() => skillUpdates() > before)
    // a stops listening to STATIC.
    await a.client.unsubscribeResource({ uri: STATIC })
    const [aSeen, cSeen] = [a.updates.length, c.updates.length]
    await toggleUpdates()
    await sendUpdates()
    await waitFor(() => a.updates.slice(aSeen).includes(DYNAMIC))
    expect(a.updates.slice(aSeen)).not.toContain(STATIC)
    // A catalog change sends carol its instruction skill's update after anything the server sent before it.
    await plane.skills.edit('deploy-guide', { description: 'Ship very safely' }, plane.now())
    await waitFor(() => c.updates.slice(cSeen).includes(SKILL_MD))
    expect(c.updates.slice(cSeen)).not.toContain(DYNAMIC)
    if (denied.ok) await plane.policies.clear(denied.policy.id, admin)
    await toggleUpdates()
  })

  it('follows a changed resource list, and subscribes again when the server restarts', async () => {
    const a = await connect(keys.root!)
    await a.client.subscribeResource({ uri: DYNAMIC })
    const made = await plane.invoke('everything_gzip_file_as_resource', { name: 'hello.txt.gz', data: 'data:text/plain,hello' }, { caller: admin })
    expect(made.ok).toBe(true)
    await waitFor(() => a.listChanges > 0)
    expect((await a.client.listResources()).resources.map((r) => r.uri)).toContain('demo://resource/session/hello.txt.gz')
    expect((await a.client.readResource({ uri: 'demo://resource/session/hello.txt.gz' })).contents[0]).toMatchObject({ mimeType: 'application/gzip' })

    // Down: its resources stay listed, and reading one answers why it can't be read.
    writeFileSync(stopFile, '')
    const pid = Number(readFileSync(pidFile, 'utf8'))
    process.kill(pid, 'SIGKILL')
    await waitFor(() => plane.sources.mcpServers().find((s) => s.name === 'everything')!.state === 'down')
    expect((await a.client.listResources()).resources.map((r) => r.uri)).toContain(STATIC)
    expect(await a.client.readResource({ uri: STATIC }).catch((e) => e)).toMatchObject({
      code: -32603,
      // Between two attempts, or during one.
      message: expect.stringMatching(/unavailable: skill "everything_read_resource" is unavailable: MCP server "everything" is (not connected|connecting)/),
    })
    rmSync(stopFile)
    await plane.sources.reload()
    await waitFor(() => Number(readFileSync(pidFile, 'utf8')) !== pid && plane.sources.mcpServers().find((s) => s.name === 'everything')!.state === 'connected')
    // The new process has no session resources: the list changed again.
    await waitFor(async () => !(await a.client.listResources()).resources.some((r) => r.uri.includes('hello.txt.gz')))
    const seen = a.updates.length
    await sendUpdates()
    await waitFor(() => a.updates.slice(seen).includes(DYNAMIC))
    await toggleUpdates()
  })
})

const NOTES = join(import.meta.dirname, '../../sources/mcp/fixtures/resource-server.mjs')

describe.each(databases)("an imported server's subscriptions, secrets and class override ($name)", (database) => {
  let plane: Skillplane
  let server: HttpServer
  const keys: Record<string, string> = {}
  const sessions: Client[] = []

  beforeAll(async () => {
    plane = await openTestPlane(database, {
      mcpServers: [
        {
          name: 'notes',
          command: process.execPath,
          args: [NOTES],
          env: { NOTE_TOKEN: { secret: 'NOTE_TOKEN' } },
          agents: ['Helper'],
          resources: { class: 'mutating' },
        },
      ],
    })
    await plane.values.secrets.set('NOTE_TOKEN', 'tok-5b1e9c77a0')
    await waitFor(() => plane.sources.mcpServers()[0]!.state === 'connected')
    server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    keys.root = (await plane.people.keys.create({ name: 'root', role: 'admin' }, plane.now())).key
    keys.helper = (await plane.people.keys.create({ name: 'helper-key', role: 'agent', agentId: 'helper' }, plane.now())).key
  })
  afterAll(async () => {
    for (const client of sessions) await client.close().catch(() => {})
    await server?.close()
    await plane?.close()
  })

  async function connect(key: string): Promise<Session> {
    const client = new Client({ name: 'resource-browser', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }))
    sessions.push(client)
    const session: Session = { client, updates: [], listChanges: 0 }
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void session.updates.push(n.params.uri))
    await client.listResources()
    return session
  }
  /** What the server itself holds subscribed, one entry per resources/subscribe it received. */
  const upstream = async () => {
    const envelope = await plane.invoke('notes_subscribed', {}, { caller: admin })
    return envelope.ok ? (JSON.parse((envelope.data as { content: Array<{ text: string }> }).content[0]!.text) as string[]) : ['failed']
  }
  const touch = (uris: string[]) => plane.invoke('notes_touch', { uris }, { caller: admin })

  it('holds one upstream subscription per URI for all sessions, dropped when the last one unsubscribes or closes', async () => {
    const a = await connect(keys.root!)
    const b = await connect(keys.root!)
    await a.client.subscribeResource({ uri: 'note://a' })
    await b.client.subscribeResource({ uri: 'note://a' })
    await b.client.subscribeResource({ uri: 'note://pages/2' })
    expect(await upstream()).toEqual(['note://a', 'note://pages/2'])

    await touch(['note://pages/2', 'note://a'])
    await waitFor(() => a.updates.includes('note://a') && b.updates.includes('note://a'))
    expect(a.updates).toEqual(['note://a'])
    expect(b.updates).toEqual(['note://pages/2', 'note://a'])

    await a.client.unsubscribeResource({ uri: 'note://a' })
    expect(await upstream()).toEqual(['note://a', 'note://pages/2'])
    // The client ends its session (DELETE /mcp): its subscriptions go with it.
    await (b.client.transport as StreamableHTTPClientTransport).terminateSession()
    await waitFor(async () => (await upstream()).length === 0)
    await touch(['note://a'])
    // a's session is still open, and hears nothing more.
    await a.client.subscribeResource({ uri: 'note://pages/3' })
    await touch(['note://a', 'note://pages/3'])
    await waitFor(() => a.updates.includes('note://pages/3'))
    expect(a.updates).toEqual(['note://a', 'note://pages/3'])
  })

  it("scrubs the server's credentials from what it reads, and gates reads by the configured class", async () => {
    const root = await connect(keys.root!)
    const read = await root.client.readResource({ uri: 'note://token' })
    expect(read.contents).toEqual([{ uri: 'note://token', mimeType: 'text/plain', text: 'the token is [REDACTED]' }])
    expect(JSON.stringify(await plane.audit.query({ skill: 'notes_read_resource', limit: 10 }))).not.toContain('tok-5b1e9c77a0')
    expect(plane.skills.get('notes_read_resource')).toMatchObject({ class: 'mutating' })

    // resources: { class: 'mutating' }: the agent's read waits for an approval, like any mutating call of an agent.
    const helper = await connect(keys.helper!)
    expect((await helper.client.listResources()).resources.map((r) => r.uri)).toEqual(['note://a', 'note://token'])
    expect(await helper.client.readResource({ uri: 'note://a' }).catch((e) => e)).toMatchObject({
      code: -32603,
      message: expect.stringContaining('approval_required'),
    })
  })
})
