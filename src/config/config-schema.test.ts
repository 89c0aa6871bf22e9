import { describe, expect, expectTypeOf, it } from 'vitest'
import type { LanguageModelV3 } from '@ai-sdk/provider'
import { resolveConfig, type ResolvedConfig } from './resolve-config.js'
import type { AgentConfig, SkillplaneConfig } from './define-config.js'

describe('the config schema', () => {
  it('types the config as written and as resolved from the one schema', () => {
    // As written: everything optional; a model is provider settings or an AI SDK model object.
    expectTypeOf<SkillplaneConfig['http']>().toEqualTypeOf<{ maxBodyBytes?: number; allowedHosts?: string[]; allowedOrigins?: string[] } | undefined>()
    expectTypeOf<AgentConfig['model']>().toEqualTypeOf<
      { provider: 'openai' | 'anthropic' | 'openai-compatible'; model: string; apiKeyEnv?: string; baseURL?: string } | LanguageModelV3 | undefined
    >()
    // Resolved: defaults filled in, shapes normalised.
    expectTypeOf<ResolvedConfig['http']>().toEqualTypeOf<{ maxBodyBytes: number; allowedHosts: string[]; allowedOrigins: string[] }>()
    expectTypeOf<ResolvedConfig['skillDirs']>().toExtend<Array<{ path: string; agents: string[] }>>()
    expectTypeOf<ResolvedConfig['agents'][number]['maxSteps']>().toEqualTypeOf<number>()
  })

  it('fills in defaults and names the path of what is wrong', async () => {
    const resolved = await resolveConfig({ skillDirs: ['skills'], agents: [{ name: 'Helper' }] }, { dataDir: '/tmp' }, 'test')
    expect(resolved).toMatchObject({
      skillDirs: [{ path: 'skills', agents: [] }],
      agents: [{ name: 'Helper', aliases: [], description: '', maxSteps: 10 }],
      http: { maxBodyBytes: 1_048_576, allowedHosts: [], allowedOrigins: [] },
      defaults: { timeoutMs: 30_000 },
    })
    await expect(resolveConfig({ agents: [{ name: 'A', model: { provider: 'openai-compatible', model: 'm' } }] }, { dataDir: '/tmp' }, 'test')).rejects.toThrow(
      'config test: agents[0].model.baseURL: openai-compatible needs the base URL of its API',
    )
    await expect(resolveConfig({ mcpServers: [{ name: 'x', url: 'http://h', args: [] }] } as never, { dataDir: '/tmp' }, 'test')).rejects.toThrow(
      'config test: mcpServers[0].args: does not apply to a url server',
    )
  })
})
