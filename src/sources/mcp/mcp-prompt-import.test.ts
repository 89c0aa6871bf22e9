import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { PromptListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { databases, waitFor } from '../../test-support/databases.js'
import { agentCaller, openTestPlane, operator } from '../../test-support/fixtures.js'
import type { Skillplane } from '../../agents/index.js'
import { startHttpServer } from '../../surfaces/http/start-http-server.js'

const [sqlite] = databases
const FIXTURE = join(import.meta.dirname, 'fixtures/prompt-mcp-server.mjs')
const TOKEN = 'prompt-token-5150'

describe("an MCP server's prompts", () => {
  const cleanup: Array<() => Promise<unknown>> = []
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step().catch(() => {})
  })

  async function open(): Promise<Skillplane> {
    const location = await sqlite!.create()
    const first = await openTestPlane(sqlite!, {}, location)
    await first.values.secrets.set('PROMPT_TOKEN', TOKEN)
    await first.close()
    const plane = await openTestPlane(
      sqlite!,
      {
        mcpServers: [
          { name: 'pr', command: process.execPath, args: [FIXTURE], env: { PROMPT_TOKEN: { secret: 'PROMPT_TOKEN' } }, prompts: { agents: ['Helper'] } },
          { name: 'clash', command: process.execPath, args: [FIXTURE], env: { CLASH: '1' } },
          { name: 'pm', command: process.execPath, args: [FIXTURE], agents: ['Helper'], prompts: { class: 'mutating' } },
        ],
      },
      location,
    )
    cleanup.push(() => plane.close())
    return plane
  }

  it('are read from every page, named like tools (alike names hashed), and got through one skill; problems are reported', async () => {
    const plane = await open()
    const [pr, clash] = plane.sources.mcpServers()
    // In config order, whichever listed first.
    const [prompts, ...others] = plane.sources.mcpPrompts()
    expect(others.map((o) => o.skill)).toEqual(['pm_get_prompt'])
    expect(prompts!.skill).toBe('pr_get_prompt')
    expect(prompts!.prompts.map((p) => [p.name, p.prompt.name])).toEqual([
      // Listed twice: its name folds alike with its duplicate's, so it is hashed too, as a tool's key would be.
      [expect.stringMatching(/^pr_greet_[0-9a-f]{8}$/), 'greet'],
      ['pr_show_token', 'show_token'],
      [expect.stringMatching(/^pr_get_user_[0-9a-f]{8}$/), 'getUser'],
      [expect.stringMatching(/^pr_get_user_[0-9a-f]{8}$/), 'get_user'],
    ])
    expect(new Set(prompts!.prompts.map((p) => p.name)).size).toBe(4)
    expect(pr).toMatchObject({ skills: ['pr_add_prompt', 'pr_get_prompt'] })
    expect(pr!.problems).toEqual([
      'prompt #6 is malformed (name: Invalid input: expected string, received number); skipped',
      'prompt "greet" is listed twice; the first is kept',
    ])
    // A tool named get_prompt keeps its key; the prompts are not served, and the report says why.
    expect(clash!.skills).toEqual(['clash_add_prompt', 'clash_get_prompt'])
    expect(plane.skills.get('clash_get_prompt')!.origin).toBe('MCP server "clash", tool "get_prompt"')
    expect(clash!.problems).toContainEqual(
      'prompts: the key "clash_get_prompt" of their skill is taken by mcp skill "clash_get_prompt" (MCP server "clash", tool "get_prompt"); the prompts are not served',
    )

    const skill = plane.skills.get('pr_get_prompt')!
    expect(skill).toMatchObject({ class: 'safe', category: 'pr', tags: ['mcp', 'prompt'] })
    expect(skill.description).toContain('greet (who); show_token; getUser; get_user')
    expect(await plane.invoke('pr_get_prompt', { name: 'greet', arguments: { who: 'Ada' } }, { caller: operator })).toMatchObject({
      ok: true,
      data: { description: 'the greet prompt', messages: [{ role: 'user', content: { type: 'text', text: 'Hello, Ada!' } }] },
    })
    // The server's credential never comes back: scrubbed like any injected secret.
    const token = await plane.invoke('pr_get_prompt', { name: 'show_token' }, { caller: operator })
    expect(token).toMatchObject({ ok: true, data: { messages: [{ content: { text: 'my token is [REDACTED]' } }] } })
    expect(JSON.stringify(await plane.audit.get(token.callId))).not.toContain(TOKEN)
    expect(await plane.invoke('pr_get_prompt', { name: 'gret' }, { caller: operator })).toMatchObject({
      ok: false,
      error: { code: 'invalid_input', message: 'MCP server "pr" has no prompt "gret" (did you mean "greet"?)' },
    })
    expect(await plane.invoke('pr_get_prompt', { name: 'show_token', arguments: { a: '1', b: '2' } }, { caller: operator })).toMatchObject({
      ok: false,
      error: { code: 'invalid_input', message: 'prompt "show_token" of MCP server "pr" has no arguments "a", "b" (it takes no arguments)' },
    })
    // Completions are gated by the same skill: a caller that may not call it is refused before the server is asked.
    const params = { ref: { type: 'ref/prompt' as const, name: 'greet' }, argument: { name: 'who', value: 'A' } }
    await expect(plane.sources.mcpComplete('pr', params, { caller: agentCaller('other') })).rejects.toMatchObject({
      code: 'denied',
      message: 'other-key may not ask MCP server "pr" for completions: that needs the skill "pr_get_prompt"',
    })
    await expect(plane.sources.mcpComplete('clash', params, { caller: operator })).rejects.toMatchObject({ code: 'denied' })
    // The config's class replaces safe: an agent's get now waits for an approver, like any mutating skill.
    expect(plane.skills.get('pm_get_prompt')!.class).toBe('mutating')
    expect(await plane.invoke('pm_get_prompt', { name: 'greet', arguments: { who: 'Ada' } }, { caller: agentCaller('helper') })).toMatchObject({
      ok: false,
      error: { code: 'approval_required' },
    })
    // An agent of the config's prompts.agents may get them; the server's own agents list stays as it was.
    expect(plane.skills.isBound('helper', 'pr_get_prompt')).toBe(true)
    expect(plane.skills.isBound('helper', 'pr_add_prompt')).toBe(false)
  })

  it('follow the server: a changed prompt list reaches /mcp sessions as prompts/list_changed', async () => {
    const plane = await open()
    const server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    cleanup.push(() => server.close())
    const { key } = await plane.people.keys.create({ name: 'root', role: 'admin' }, plane.now())
    const client = new Client({ name: 'watcher', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }))
    cleanup.push(() => client.close())
    expect((await client.listPrompts()).prompts.map((p) => p.name)).not.toContain('pr_later')
    let changed = 0
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => void changed++)
    expect(await client.callTool({ name: 'pr_add_prompt', arguments: {} })).toMatchObject({ content: [{ type: 'text', text: 'done' }] })
    await waitFor(() => changed > 0)
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toContain('pr_later')
    expect(plane.skills.get('pr_get_prompt')!.description).toContain('later')
    // A server that doesn't complete says so, as an MCP error naming it.
    expect(await client.complete({ ref: { type: 'ref/prompt', name: 'pr_show_token' }, argument: { name: 'who', value: 'A' } }).catch((e) => e)).toMatchObject({
      code: -32603,
      message: expect.stringContaining('completion by MCP server "pr": MCP server "pr" answered with an error'),
    })
  })
})
