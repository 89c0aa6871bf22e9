import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { databases, tree } from '../test-support/databases.js'
import { openTestPlane, testSkills } from '../test-support/fixtures.js'
import { defineSkill } from '../skill/index.js'
import { startHttpServer } from '../surfaces/http/index.js'

const [sqlite] = databases

// Bound to both test agents, so sharing alone decides which of them sees it.
const teamTool = defineSkill({
  key: 'team_tool',
  description: 'A tool for one team',
  class: 'safe',
  agents: ['Helper', 'Other'],
  input: z.object({}),
  run: () => ({ done: true }),
})

describe('"did you mean" for a mistyped skill key', () => {
  const cleanup: Array<() => Promise<unknown>> = []
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step().catch(() => {})
  })

  it('suggests only a skill the caller may see, on HTTP, MCP and activate_skill: a hidden one is never named', async () => {
    const skills = tree({ 'team-guide/SKILL.md': '---\nname: team-guide\ndescription: How the team ships\n---\n# Ship\n' })
    const plane = await openTestPlane(sqlite!, { skills: [...testSkills(), teamTool], skillDirs: [{ path: skills, agents: ['Helper', 'Other'] }] })
    cleanup.push(() => plane.close())
    const server = await startHttpServer(plane, { host: '127.0.0.1', port: 0 })
    cleanup.push(() => server.close())
    const key = async (name: string, role: 'operator' | 'admin' | 'agent', agentId?: string) =>
      (await plane.people.keys.create({ name, role, agentId }, plane.now())).key
    const keys = { helper: await key('helper-key', 'agent', 'helper'), other: await key('other-key', 'agent', 'other'), otto: await key('otto', 'operator') }
    const root = await key('root', 'admin')
    const http = async (bearer: string, method: string, path: string, body?: unknown) => {
      const response = await fetch(`${server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      })
      return { status: response.status, body: (await response.json()) as { error?: { code: string; message: string } } }
    }
    const mcpError = async (bearer: string, name: string, args: Record<string, unknown>) => {
      const client = new Client({ name: 'typo-test', version: '1.0.0' })
      await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${bearer}` } } }))
      try {
        const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: Array<{ text?: string }> }
        return result.isError ? result.content[0]?.text : 'no error'
      } catch (error) {
        return (error as Error).message
      } finally {
        await client.close()
      }
    }
    // What each key is told for a mistyped key: invoking it, reading it, over MCP, and activating a mistyped instruction skill.
    const told = async (bearer: string) => ({
      invoke: (await http(bearer, 'POST', '/api/skills/team_tol/invoke', { input: {} })).body.error?.message,
      detail: (await http(bearer, 'GET', '/api/skills/team-gide')).body.error?.message,
      bound: (await http(bearer, 'POST', '/api/skills/ech/invoke', { input: { message: 'x' } })).body.error?.message,
      mcp: await mcpError(bearer, 'team_tol', {}),
      activate: (await http(bearer, 'POST', '/api/skills/activate_skill/invoke', { input: { name: 'team-gide' } })).body.error?.message,
    })

    // Shared with all: each key is pointed at what it may use; echo is bound to Helper only.
    expect(await told(keys.helper)).toEqual({
      invoke: 'no skill with key "team_tol" (did you mean "team_tool"?)',
      detail: 'no skill with key "team-gide" (did you mean "team-guide"?)',
      bound: 'no skill with key "ech" (did you mean "echo"?)',
      mcp: expect.stringContaining('no skill with key "team_tol" (did you mean "team_tool"?)'),
      activate: expect.stringMatching(/^no skill named "team-gide" is available \(did you mean "team-guide"\?\); /),
    })
    expect(await told(keys.other)).toMatchObject({ invoke: expect.stringContaining('(did you mean "team_tool"?)'), bound: 'no skill with key "ech"' })

    // Shared with Helper only: Other and a person are told nothing about it, exactly as for a key nobody has.
    for (const skill of ['team_tool', 'team-guide']) {
      expect((await http(root, 'PUT', `/api/skills/${skill}/sharing`, { visibility: 'agents', agents: ['Helper'] })).status).toBe(200)
    }
    expect(await told(keys.helper)).toMatchObject({
      invoke: expect.stringContaining('did you mean "team_tool"'),
      detail: expect.stringContaining('did you mean "team-guide"'),
    })
    for (const bearer of [keys.other, keys.otto]) {
      const answers = await told(bearer)
      expect(answers).toMatchObject({
        invoke: 'no skill with key "team_tol"',
        detail: 'no skill with key "team-gide"',
        activate: expect.stringMatching(/^no skill named "team-gide" is available; /),
      })
      expect(JSON.stringify(answers)).not.toMatch(/team_tool|team-guide/)
    }
    // An admin sees every skill, and is pointed at it.
    expect((await http(root, 'GET', '/api/skills/team_tol')).body.error?.message).toBe('no skill with key "team_tol" (did you mean "team_tool"?)')
  })
})
