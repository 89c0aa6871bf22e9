import { createRequire } from 'node:module'
import { afterEach, describe, expect, it } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { databases, tree } from '../../test-support/databases.js'
import { openTestPlane } from '../../test-support/fixtures.js'
import type { Skillplane } from '../../agents/index.js'
import { startHttpServer, type HttpServer } from '../http/start-http-server.js'

// The reference MCP server: prompts with arguments, completions, resource templates.
const EVERYTHING = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js')
// More files than one completion may hold.
const MANY = 120

describe.each(databases)("imported servers' prompts and completions at /mcp on $name", (database) => {
  const cleanup: Array<() => Promise<unknown>> = []
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step().catch(() => {})
  })

  async function setup(): Promise<{ plane: Skillplane; connect: (name: string, role: 'admin' | 'agent', agentId?: string) => Promise<Client> }> {
    const files: Record<string, string> = {
      'deploy-guide/SKILL.md': '---\nname: deploy-guide\ndescription: Ship safely\n---\n# Deploy\n',
      'deploy-guide/references/steps.md': 'step one\n',
    }
    for (let i = 0; i < MANY; i++) files[`big-book/pages/page-${String(i).padStart(3, '0')}.md`] = `page ${i}\n`
    files['big-book/SKILL.md'] = '---\nname: big-book\ndescription: Many pages\n---\n# Book\n'
    const plane = await openTestPlane(database, {
      skillDirs: [{ path: tree(files), agents: ['Helper'] }],
      mcpServers: [{ name: 'everything', command: process.execPath, args: [EVERYTHING, 'stdio'], agents: ['Helper'] }],
    })
    cleanup.push(() => plane.close())
    const server: HttpServer = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    cleanup.push(() => server.close())
    const connect = async (name: string, role: 'admin' | 'agent', agentId?: string) => {
      const { key } = await plane.people.keys.create({ name, role, agentId }, plane.now())
      const client = new Client({ name, version: '1.0.0' })
      await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }))
      cleanup.push(() => client.close())
      return client
    }
    return { plane, connect }
  }

  it('lists the prompts with their arguments and gets them through the gate, audited; bad arguments are refused by name', async () => {
    const { plane, connect } = await setup()
    const helper = await connect('helper-key', 'agent', 'helper')
    expect(helper.getServerCapabilities()).toMatchObject({ prompts: { listChanged: true }, completions: {} })

    const { prompts } = await helper.listPrompts()
    expect(prompts.map((p) => p.name)).toEqual([
      'big-book',
      'deploy-guide',
      'everything_simple_prompt',
      'everything_args_prompt',
      'everything_completable_prompt',
      'everything_resource_prompt',
    ])
    expect(prompts.find((p) => p.name === 'everything_args_prompt')).toEqual({
      name: 'everything_args_prompt',
      title: 'Arguments Prompt',
      description: 'A prompt with two arguments, one required and one optional',
      arguments: [
        { name: 'city', description: 'Name of the city', required: true },
        { name: 'state', required: false },
      ],
    })

    const got = await helper.getPrompt({ name: 'everything_args_prompt', arguments: { city: 'Oslo', state: 'Viken' } })
    expect(got.messages).toEqual([{ role: 'user', content: { type: 'text', text: "What's weather in Oslo, Viken?" } }])
    const callId = (got._meta as Record<string, string>)['skillplane/callId']
    expect(await plane.audit.get(callId!)).toMatchObject({
      skill: 'everything_get_prompt',
      status: 'ok',
      caller: { name: 'helper-key' },
      input: { name: 'args-prompt', arguments: { city: 'Oslo', state: 'Viken' } },
    })
    // A prompt whose messages embed a resource passes through as the server sent it.
    const embedded = await helper.getPrompt({ name: 'everything_resource_prompt', arguments: { resourceType: 'Text', resourceId: '3' } })
    expect(embedded.messages[1]).toMatchObject({ role: 'user', content: { type: 'resource', resource: { uri: 'demo://resource/dynamic/text/3' } } })

    // Checked against the prompt's declared arguments before the server is asked (it would ignore an unknown one).
    expect(await helper.getPrompt({ name: 'everything_args_prompt', arguments: {} }).catch((e) => e)).toMatchObject({
      code: -32602,
      message: 'MCP error -32602: prompt "everything_args_prompt": prompt "args-prompt" of MCP server "everything" needs the argument "city"',
      data: { callId: expect.any(String) },
    })
    expect(await helper.getPrompt({ name: 'everything_args_prompt', arguments: { city: 'Oslo', zip: '0150' } }).catch((e) => e)).toMatchObject({
      code: -32602,
      message:
        'MCP error -32602: prompt "everything_args_prompt": prompt "args-prompt" of MCP server "everything" has no argument "zip" (it takes city, state)',
    })
    expect(await helper.getPrompt({ name: 'everything_no_such' }).catch((e) => e)).toMatchObject({
      code: -32602,
      message: 'MCP error -32602: unknown prompt "everything_no_such": prompts/list shows the prompts this caller may get',
    })
    const audited = (await plane.audit.query({ caller: 'helper-key', skill: 'everything_get_prompt', limit: 10 })).items
    expect(audited.map((e) => [e.status, e.error?.code ?? null]).sort()).toEqual([
      ['error', 'invalid_input'],
      ['error', 'invalid_input'],
      ['ok', null],
      ['ok', null],
    ])

    // The prompts' skill is a skill like the tools: safe, bound to the server's agents, named in the server's report.
    expect(plane.skills.get('everything_get_prompt')).toMatchObject({ class: 'safe', source: 'mcp' })
    expect(plane.sources.mcpServers()[0]!.skills).toContain('everything_get_prompt')

    // A key without the get_prompt skill sees no imported prompt, can't get one, and leaves no audit row.
    const other = await connect('other-key', 'agent', 'other')
    expect((await other.listPrompts()).prompts).toEqual([])
    expect(await other.getPrompt({ name: 'everything_args_prompt', arguments: { city: 'Oslo' } }).catch((e) => e)).toMatchObject({
      code: -32602,
      message: 'MCP error -32602: unknown prompt "everything_args_prompt": prompts/list shows the prompts this caller may get',
    })
    expect((await plane.audit.query({ caller: 'other-key', limit: 10 })).items).toEqual([])
  })

  it("completes an imported prompt's arguments at its server, an instruction skill's template variables, and refuses what the caller may not use", async () => {
    const { plane, connect } = await setup()
    const helper = await connect('helper-key', 'agent', 'helper')
    const prompt = { type: 'ref/prompt' as const, name: 'everything_completable_prompt' }
    expect((await helper.complete({ ref: prompt, argument: { name: 'department', value: 'E' } })).completion).toEqual({
      values: ['Engineering'],
      total: 1,
      hasMore: false,
    })
    // The context goes along: the server narrows the second argument by the first.
    expect(
      (await helper.complete({ ref: prompt, argument: { name: 'name', value: '' }, context: { arguments: { department: 'Sales' } } })).completion.values,
    ).toEqual(['David', 'Eve', 'Frank'])
    // Instruction skills' prompts take no arguments.
    expect((await helper.complete({ ref: { type: 'ref/prompt', name: 'deploy-guide' }, argument: { name: 'task', value: 'x' } })).completion).toEqual({
      values: [],
      total: 0,
      hasMore: false,
    })

    const template = { type: 'ref/resource' as const, uri: 'skill://{skill}/{+path}' }
    // The instruction skills' template is listed first, then the imported servers'.
    expect((await helper.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      template.uri,
      'demo://resource/dynamic/text/{resourceId}',
      'demo://resource/dynamic/blob/{resourceId}',
    ])
    expect((await helper.complete({ ref: template, argument: { name: 'skill', value: 'dep' } })).completion.values).toEqual(['deploy-guide'])
    expect(
      (await helper.complete({ ref: template, argument: { name: 'path', value: 'ref' }, context: { arguments: { skill: 'deploy-guide' } } })).completion,
    ).toEqual({ values: ['references/steps.md'], total: 1, hasMore: false })
    // At most 100 values, with the total.
    const pages = (await helper.complete({ ref: template, argument: { name: 'path', value: 'pages/' }, context: { arguments: { skill: 'big-book' } } }))
      .completion
    expect(pages).toMatchObject({ total: MANY, hasMore: true })
    expect(pages.values).toHaveLength(100)

    // An imported template's variables are completed by its server, for a key that may read its resources.
    const imported = { type: 'ref/resource' as const, uri: 'demo://resource/dynamic/text/{resourceId}' }
    expect((await helper.complete({ ref: imported, argument: { name: 'resourceId', value: '12' } })).completion.values).toEqual(['12'])
    expect(
      await helper.complete({ ref: { type: 'ref/resource', uri: 'demo://nothing/{x}' }, argument: { name: 'x', value: '' } }).catch((e) => e),
    ).toMatchObject({
      code: -32602,
      message: 'MCP error -32602: unknown resource template "demo://nothing/{x}": resources/templates/list shows the ones this caller may use',
    })

    // Another key: no prompt of the server, no instruction skill of Helper's; nothing reaches the server, nothing is audited.
    const other = await connect('other-key', 'agent', 'other')
    expect((await other.listResourceTemplates()).resourceTemplates).toEqual([])
    expect(await other.complete({ ref: prompt, argument: { name: 'department', value: 'E' } }).catch((e) => e)).toMatchObject({
      code: -32602,
      message: 'MCP error -32602: unknown prompt "everything_completable_prompt": prompts/list shows the prompts this caller may get',
    })
    expect(await other.complete({ ref: imported, argument: { name: 'resourceId', value: '12' } }).catch((e) => e)).toMatchObject({
      code: -32602,
      message: `MCP error -32602: unknown resource template "${imported.uri}": resources/templates/list shows the ones this caller may use`,
    })
    expect((await other.complete({ ref: template, argument: { name: 'skill', value: '' } })).completion.values).toEqual([])
    expect(
      (await other.complete({ ref: template, argument: { name: 'path', value: '' }, context: { arguments: { skill: 'deploy-guide' } } })).completion.values,
    ).toEqual([])
    expect((await plane.audit.query({ caller: 'other-key', limit: 10 })).items).toEqual([])
    // Completions are not calls: the helper's left no rows either.
    expect((await plane.audit.query({ caller: 'helper-key', limit: 10 })).items).toEqual([])
  })
})
