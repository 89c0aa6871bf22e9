import { describe, expect, expectTypeOf, it } from 'vitest'
import type { LanguageModelV3 } from '@ai-sdk/provider'
import { MockLanguageModelV3 } from 'ai/test'
import { z } from 'zod'
import { defineSkill, type DefinedSkill } from '../skill/index.js'
import { defineConfig, type AgentConfig, type ConfigInput, type McpServerConfig, type SkillplaneConfig } from './define-config.js'
import { resolveConfig, type ResolvedAgent, type ResolvedConfig, type ResolvedMcpServer, type ResolvedModel } from './resolve-config.js'

// The types are checked by `npm run typecheck` (tsc reads this file); the assertions run as tests too.
describe('config types, derived from the one schema', () => {
  it('types what a config file writes: every field optional, skills and model objects as they are', () => {
    const echo = defineSkill({ key: 'echo', description: 'Echo', class: 'safe', input: z.object({ message: z.string() }), run: ({ message }) => message })
    const config = defineConfig({
      skills: [echo],
      agents: [
        { name: 'A', model: new MockLanguageModelV3() },
        { name: 'B', model: { provider: 'openai', model: 'gpt-4.1-mini' } },
      ],
      mcpServers: [
        { name: 'files', command: 'node' },
        { name: 'remote', url: 'https://h/mcp', headers: { a: 'b' } },
      ],
      skillDirs: ['skills', { path: 'more', agents: ['A'] }],
    })
    expectTypeOf(config).toExtend<SkillplaneConfig>()
    expectTypeOf<Record<never, never>>().toExtend<SkillplaneConfig>()
    expectTypeOf<SkillplaneConfig['skills']>().toEqualTypeOf<DefinedSkill<any, any>[] | undefined>()
    expectTypeOf<SkillplaneConfig['agents']>().toEqualTypeOf<AgentConfig[] | undefined>()
    expectTypeOf<AgentConfig['model']>().toExtend<LanguageModelV3 | { provider: 'openai' | 'anthropic' | 'openai-compatible'; model: string } | undefined>()
    expectTypeOf<(env: { dataDir: string }) => Promise<SkillplaneConfig>>().toExtend<ConfigInput>()
    // An MCP server is either kind, so one with neither command nor url does not type-check.
    expectTypeOf<{ name: 'a' }>().not.toExtend<McpServerConfig>()
    // @ts-expect-error an unknown field is refused by the type as by the schema
    defineConfig({ agnets: [] })
    // @ts-expect-error a provider the schema does not know
    defineConfig({ agents: [{ name: 'A', model: { provider: 'mistral', model: 'm' } }] })
  })

  it('types the resolved config with its defaults filled in', async () => {
    const model = new MockLanguageModelV3()
    const resolved = await resolveConfig({ agents: [{ name: 'A', model }] }, { dataDir: '/d' }, 'c.ts')
    expectTypeOf(resolved).toEqualTypeOf<ResolvedConfig>()
    expectTypeOf(resolved.agents).toEqualTypeOf<ResolvedAgent[]>()
    expectTypeOf(resolved.defaults.timeoutMs).toEqualTypeOf<number>()
    expectTypeOf(resolved.approvals.webhookUrl).toEqualTypeOf<string | undefined>()
    expectTypeOf(resolved.skillDirs).toExtend<{ path: string; agents: string[] }[]>()
    expectTypeOf<ResolvedAgent['aliases']>().toEqualTypeOf<string[]>()
    expectTypeOf<ResolvedAgent['model']>().toEqualTypeOf<LanguageModelV3 | ResolvedModel | undefined>()
    expectTypeOf<ResolvedModel['provider']>().toEqualTypeOf<'openai' | 'anthropic' | 'openai-compatible'>()
    expectTypeOf<Extract<ResolvedMcpServer, { transport: 'stdio' }>['args']>().toEqualTypeOf<string[]>()
    expectTypeOf<Extract<ResolvedMcpServer, { transport: 'http' }>['headers']>().toEqualTypeOf<Record<string, string | { secret: string; prefix?: string }>>()
    expect(resolved.agents[0]!.model).toBe(model)
  })
})
