import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { McpError, PromptListChangedNotificationSchema, ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { databases, tree, waitFor } from '../../test-support/databases.js'
import { openTestPlane } from '../../test-support/fixtures.js'
import type { Skillplane } from '../../agents/index.js'
import { startHttpServer, type HttpServer } from '../http/start-http-server.js'

const [sqlite] = databases
// The first bytes of a PNG: binary, so served as a blob.
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0xff, 0xfe])

describe('instruction skills as MCP resources and prompts', () => {
  const cleanup: Array<() => Promise<unknown>> = []
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step().catch(() => {})
  })

  async function setup(): Promise<{
    plane: Skillplane
    server: HttpServer
    key: (name: string, role: 'admin' | 'agent', agentId?: string) => Promise<string>
  }> {
    const root = tree({
      'deploy-guide/SKILL.md': '---\nname: deploy-guide\ndescription: Ship safely\n---\n# Deploy\n\nRead references/steps.md first.\n',
      'deploy-guide/references/steps.md': 'step one\n',
    })
    writeFileSync(join(root, 'deploy-guide/references/logo.png'), PNG)
    const plane = await openTestPlane(sqlite!, { skillDirs: [{ path: root, agents: ['Helper'] }] })
    cleanup.push(() => plane.close())
    const server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    cleanup.push(() => server.close())
    const key = async (name: string, role: 'admin' | 'agent', agentId?: string) => (await plane.people.keys.create({ name, role, agentId }, plane.now())).key
    return { plane, server, key }
  }

  async function connect(server: HttpServer, key: string): Promise<Client> {
    const client = new Client({ name: 'browser', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }))
    cleanup.push(() => client.close())
    return client
  }

  it('lists, reads and prompts what the caller may activate, through the pipeline, binary files as blobs', async () => {
    const { plane, server, key } = await setup()
    const helper = await connect(server, await key('helper-key', 'agent', 'helper'))
    expect(helper.getServerCapabilities()).toMatchObject({ resources: { listChanged: true }, prompts: { listChanged: true } })

    const { resources } = await helper.listResources()
    expect(resources.map((r) => [r.uri, r.mimeType])).toEqual([
      ['skill://deploy-guide/SKILL.md', 'text/markdown'],
      ['skill://deploy-guide/references/logo.png', 'image/png'],
      ['skill://deploy-guide/references/steps.md', 'text/markdown'],
    ])
    const skillMd = await helper.readResource({ uri: 'skill://deploy-guide/SKILL.md' })
    expect(skillMd.contents).toEqual([
      { uri: 'skill://deploy-guide/SKILL.md', mimeType: 'text/markdown', text: expect.stringContaining('<skill_content name="deploy-guide">\n# Deploy') },
    ])
    // A document read gives the instructions every time, not the once-per-conversation note.
    expect((await helper.readResource({ uri: 'skill://deploy-guide/SKILL.md' })).contents[0]).toMatchObject({ text: expect.stringContaining('# Deploy') })
    expect((await helper.readResource({ uri: 'skill://deploy-guide/references/steps.md' })).contents).toEqual([
      { uri: 'skill://deploy-guide/references/steps.md', mimeType: 'text/markdown', text: 'step one\n' },
    ])
    const logo = (await helper.readResource({ uri: 'skill://deploy-guide/references/logo.png' })).contents[0] as { blob: string; mimeType: string }
    expect(logo.mimeType).toBe('image/png')
    expect(Buffer.from(logo.blob, 'base64')).toEqual(PNG)

    // The prompt activates the skill in the session's conversation: the second time is the note.
    expect((await helper.listPrompts()).prompts).toEqual([{ name: 'deploy-guide', title: 'Use the deploy-guide skill', description: 'Ship safely' }])
    const prompt = await helper.getPrompt({ name: 'deploy-guide' })
    expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: expect.stringContaining('<skill_content name="deploy-guide">') } }])
    expect((await helper.getPrompt({ name: 'deploy-guide' })).messages[0]!.content).toMatchObject({ text: expect.stringContaining('Already active') })

    // Refusals are MCP errors; an escape out of the folder never reads anything.
    // A missing resource is the specification's -32002, naming the URI in the message and in data.
    const missing = await helper.readResource({ uri: 'skill://deploy-guide/references/nope.md' }).catch((e) => e)
    expect(missing).toBeInstanceOf(McpError)
    expect(missing).toMatchObject({
      code: -32002,
      message: expect.stringMatching(/^MCP error -32002: resource "skill:\/\/deploy-guide\/references\/nope.md" not found: .*nope\.md/),
      data: { uri: 'skill://deploy-guide/references/nope.md', callId: expect.any(String) },
    })
    expect(await helper.readResource({ uri: 'skill://no-such-skill/SKILL.md' }).catch((e) => e)).toMatchObject({
      code: -32002,
      message: 'MCP error -32002: resource "skill://no-such-skill/SKILL.md" not found: this caller has no skill "no-such-skill" to read',
      data: { uri: 'skill://no-such-skill/SKILL.md' },
    })
    expect(await helper.readResource({ uri: 'https://example.com/x' }).catch((e) => e)).toMatchObject({
      code: -32002,
      message:
        'MCP error -32002: resource "https://example.com/x" not found: resources/list and resources/templates/list show what this caller may read (instruction skills\' are skill://<skill>/SKILL.md and skill://<skill>/<path>)',
      data: { uri: 'https://example.com/x' },
    })
    const escape = await helper.readResource({ uri: 'skill://deploy-guide/..%2F..%2F..%2Fetc%2Fpasswd' }).catch((e) => e)
    expect(escape).toMatchObject({ code: -32602, message: expect.stringContaining("outside the skill's folder") })
    // An unknown prompt is the specification's -32602 (invalid params), naming the prompt.
    expect(await helper.getPrompt({ name: 'no-such-skill' }).catch((e) => e)).toMatchObject({
      code: -32602,
      message: 'MCP error -32602: unknown prompt "no-such-skill": prompts/list shows the prompts this caller may get',
    })

    // Each read and prompt is an audited call of the instruction tools, by this key.
    const audited = (await plane.audit.query({ caller: 'helper-key', limit: 50 })).items.map((e) => [e.skill, e.status])
    expect(audited.filter(([skill]) => skill === 'activate_skill')).toHaveLength(4)
    expect(audited).toContainEqual(['read_skill_resource', 'ok'])
    expect(audited).toContainEqual(['read_skill_resource', 'error'])
  })

  it('shows nothing to a key that may not activate the skill, and tells clients when the list changes', async () => {
    const { plane, server, key } = await setup()
    const other = await connect(server, await key('other-key', 'agent', 'other'))
    expect((await other.listResources()).resources).toEqual([])
    expect((await other.listPrompts()).prompts).toEqual([])
    // A skill it may not see is answered as one that doesn't exist.
    expect(await other.readResource({ uri: 'skill://deploy-guide/SKILL.md' }).catch((e) => e)).toMatchObject({
      code: -32002,
      message: 'MCP error -32002: resource "skill://deploy-guide/SKILL.md" not found: this caller has no skill "deploy-guide" to read',
    })
    expect(await other.getPrompt({ name: 'deploy-guide' }).catch((e) => e)).toMatchObject({
      code: -32602,
      message: expect.stringContaining('unknown prompt "deploy-guide"'),
    })

    const admin = await connect(server, await key('root', 'admin'))
    expect((await admin.listResources()).resources.length).toBe(3)
    let resourcesChanged = 0
    let promptsChanged = 0
    admin.setNotificationHandler(ResourceListChangedNotificationSchema, () => void resourcesChanged++)
    admin.setNotificationHandler(PromptListChangedNotificationSchema, () => void promptsChanged++)
    await plane.skills.edit('deploy-guide', { enabled: false }, plane.now())
    await waitFor(() => resourcesChanged === 1 && promptsChanged === 1)
    expect((await admin.listResources()).resources).toEqual([])
  })

  it('answers prompts/get and resources/read by the specification when no instruction skills are configured', async () => {
    const plane = await openTestPlane(sqlite!)
    cleanup.push(() => plane.close())
    expect(plane.skills.get('activate_skill')).toBeUndefined()
    const server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    cleanup.push(() => server.close())
    const client = await connect(server, (await plane.people.keys.create({ name: 'root', role: 'admin' }, plane.now())).key)
    expect((await client.listPrompts()).prompts).toEqual([])
    expect((await client.listResources()).resources).toEqual([])
    expect(await client.getPrompt({ name: 'deploy-guide' }).catch((e) => e)).toMatchObject({
      code: -32602,
      message: 'MCP error -32602: unknown prompt "deploy-guide": prompts/list shows the prompts this caller may get',
    })
    expect(await client.readResource({ uri: 'skill://deploy-guide/SKILL.md' }).catch((e) => e)).toMatchObject({
      code: -32002,
      message: 'MCP error -32002: resource "skill://deploy-guide/SKILL.md" not found: this caller has no skill "deploy-guide" to read',
      data: { uri: 'skill://deploy-guide/SKILL.md' },
    })
  })
})
