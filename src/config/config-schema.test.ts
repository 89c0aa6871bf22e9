import { describe, expect, expectTypeOf, it } from 'vitest'
import type { LanguageModelV3 } from '@ai-sdk/provider'
import { resolveConfig, type ResolvedConfig } from './resolve-config.js'
import type { AgentConfig, SkillplaneConfig } from './define-config.js'

describe('the config schema', () => {
  it('types the config as written and as resolved from the one schema', () => {
    // As written: everything optional; a model is provider settings or an AI SDK model object.
    expectTypeOf<SkillplaneConfig['http']>().toEqualTypeOf<
      { maxBodyBytes?: number; allowedHosts?: string[]; publicUrl?: string; allowedOrigins?: string[] } | undefined
    >()
    expectTypeOf<AgentConfig['model']>().toEqualTypeOf<
      | {
          provider: 'openai' | 'anthropic' | 'openai-compatible'
          model: string
          apiKeyEnv?: string
          baseURL?: string
          pricing?: { inputPerMTok: number; outputPerMTok: number; cachedInputPerMTok?: number; cacheWritePerMTok?: number }
        }
      | LanguageModelV3
      | undefined
    >()
    // Resolved: defaults filled in, shapes normalised.
    expectTypeOf<ResolvedConfig['http']>().toEqualTypeOf<{ maxBodyBytes: number; allowedHosts: string[]; publicUrl?: string; allowedOrigins: string[] }>()
    expectTypeOf<ResolvedConfig['skillDirs']>().toExtend<Array<{ path: string; agents: string[] }>>()
    expectTypeOf<ResolvedConfig['agents'][number]['maxSteps']>().toEqualTypeOf<number>()
  })

  it('fills in defaults and names the path of what is wrong', async () => {
    const resolved = await resolveConfig({ skillDirs: ['skills'], agents: [{ name: 'Helper' }] }, { dataDir: '/tmp' }, 'test')
    expect(resolved).toMatchObject({
      skillDirs: [{ path: 'skills', agents: [] }],
      agents: [{ name: 'Helper', aliases: [], description: '', maxSteps: 10, sampling: { maxRequestsPerCall: 10, maxTokens: 4096 } }],
      http: { maxBodyBytes: 1_048_576, allowedHosts: [], allowedOrigins: [] },
      defaults: { timeoutMs: 30_000 },
    })
    await expect(resolveConfig({ agents: [{ name: 'A', sampling: { maxRequestsPerCall: -1 } }] }, { dataDir: '/tmp' }, 'test')).rejects.toThrow(
      /config test: agents\[0\]\.sampling\.maxRequestsPerCall: .*>=0/,
    )
    await expect(resolveConfig({ agents: [{ name: 'A', sampling: { maxToken: 5 } }] } as never, { dataDir: '/tmp' }, 'test')).rejects.toThrow(
      /agents\[0\]\.sampling.*maxToken/,
    )
    await expect(resolveConfig({ agents: [{ name: 'A', model: { provider: 'openai-compatible', model: 'm' } }] }, { dataDir: '/tmp' }, 'test')).rejects.toThrow(
      'config test: agents[0].model.baseURL: openai-compatible needs the base URL of its API',
    )
    await expect(resolveConfig({ mcpServers: [{ name: 'x', url: 'http://h', args: [] }] } as never, { dataDir: '/tmp' }, 'test')).rejects.toThrow(
      'config test: mcpServers[0].args: does not apply to a url server',
    )
  })

  it('refuses unknown fields at every level, naming each with the field meant', async () => {
    const refused = async (config: object) => ((await resolveConfig(config, { dataDir: '/tmp' }, 'test').catch((error: Error) => error)) as Error).message
    const get = { key: 'get_status', description: 'Status', method: 'GET', url: 'https://api.example.com/status' }
    expect(await refused({ httpSkill: [] })).toBe('config test: unknown field "httpSkill" (did you mean "httpSkills"?)')
    expect(await refused({ httpSkills: [{ ...get, clas: 'dangerous' }] })).toBe('config test: httpSkills[0]: unknown field "clas" (did you mean "class"?)')
    expect(await refused({ httpSkills: [{ ...get, methd: 'GET', zzz: 1 }] })).toBe(
      'config test: httpSkills[0]: unknown field "methd" (did you mean "method"?); unknown field "zzz"',
    )
    expect(await refused({ openapi: [{ name: 'pets', spec: 'pets.yaml', clases: {} }] })).toBe(
      'config test: openapi[0]: unknown field "clases" (did you mean "classes"?)',
    )
    expect(await refused({ openapi: [{ name: 'pets', spec: 'pets.yaml', auth: { type: 'bearer', secret: 'PETS', secert: 'x' } }] })).toBe(
      'config test: openapi[0].auth: unknown field "secert" (did you mean "secret"?)',
    )
    // An MCP server is checked as one object of both transports' fields: `urll` is near `url`, a field only remote servers have.
    expect(await refused({ mcpServers: [{ name: 'tickets', urll: 'http://127.0.0.1:9/mcp' }] })).toContain(
      'mcpServers[0]: unknown field "urll" (did you mean "url"?)',
    )
    expect(await refused({ http: { maxBodyByte: 1 } })).toBe('config test: http: unknown field "maxBodyByte" (did you mean "maxBodyBytes"?)')
    expect(await refused({ skillDirs: [{ path: 'skills', agent: ['A'] }] })).toBe('config test: skillDirs[0]: unknown field "agent" (did you mean "agents"?)')
  })

  it('checks auth.oidc, naming the field, and fills in its defaults', async () => {
    const env = { dataDir: '/tmp' }
    const oidc = { issuer: 'https://idp.example.com/realms/acme', clientId: 'skillplane', roles: { admin: ['sp-admins'] } }
    const resolved = await resolveConfig({ auth: { oidc }, http: { publicUrl: 'https://sp.example.com/' } }, env, 'test')
    expect(resolved.http.publicUrl).toBe('https://sp.example.com')
    expect(resolved.auth.oidc).toEqual({
      ...oidc,
      scopes: ['openid', 'profile', 'email'],
      groupsClaim: 'groups',
      roles: { admin: ['sp-admins'], operator: [], viewer: [] },
    })
    expect((await resolveConfig({}, env, 'test')).auth).toEqual({})
    const refused = async (config: object) => (await resolveConfig(config, env, 'test').catch((error: Error) => error)) as Error
    expect((await refused({ auth: { oidc: { ...oidc, issuer: 'http://idp.example.com' } } })).message).toBe(
      'config test: auth.oidc.issuer: must be https (http only for 127.0.0.1 or localhost)',
    )
    expect((await resolveConfig({ auth: { oidc: { ...oidc, issuer: 'http://127.0.0.1:4000' } } }, env, 'test')).auth.oidc?.issuer).toBe('http://127.0.0.1:4000')
    expect((await refused({ auth: { oidc: { ...oidc, issuer: 'idp' } } })).message).toBe('config test: auth.oidc.issuer: an http(s) URL')
    expect((await refused({ auth: { oidc: { ...oidc, clientId: '' } } })).message).toBe(
      'config test: auth.oidc.clientId: the client id at the identity provider is required',
    )
    expect((await refused({ auth: { oidc: { ...oidc, roles: {} } } })).message).toBe(
      'config test: auth.oidc.roles: map at least one group to a role (or set roleClaim): otherwise no signed-in user has a role',
    )
    expect((await refused({ auth: { oidc: { ...oidc, roles: { owner: ['x'] } } } })).message).toContain('config test: auth.oidc.roles: unknown field "owner";')
    expect((await refused({ auth: { oidc: { ...oidc, clientSecretEnv: 'not a name' } } })).message).toBe(
      'config test: auth.oidc.clientSecretEnv: an environment variable name (letters, digits and _, not starting with a digit)',
    )
    expect((await refused({ http: { publicUrl: 'https://sp.example.com/mcp' } })).message).toContain('http.publicUrl: an origin such as')
  })

  it("checks a source's oauth: its provider is configured, and it replaces a static credential", async () => {
    const env = { dataDir: '/tmp' }
    const refused = async (config: object) => ((await resolveConfig(config, env, 'test').catch((error: Error) => error)) as Error).message
    const providers = { github: { issuer: 'https://github.example.com', clientId: 'skillplane' } }
    const get = { key: 'get_user', description: 'The user', method: 'GET', url: 'https://api.example.com/user' }
    const resolved = await resolveConfig(
      {
        oauth: { providers },
        httpSkills: [{ ...get, oauth: { provider: 'github', scopes: ['read:user'] } }],
        openapi: [{ name: 'gh', spec: 'gh.yaml', oauth: { provider: 'github', account: 'service' } }],
      },
      env,
      'test',
    )
    expect(resolved.httpSkills[0]!.oauth).toEqual({ provider: 'github', scopes: ['read:user'] })
    expect(resolved.openapi[0]!.oauth).toEqual({ provider: 'github', account: 'service' })
    expect(await refused({ httpSkills: [{ ...get, oauth: { provider: 'github' } }] })).toBe(
      `config test: httpSkills[0].oauth.provider: no OAuth provider "github" in the config's oauth.providers (it names none)`,
    )
    expect(await refused({ oauth: { providers }, openapi: [{ name: 'gh', spec: 'gh.yaml', oauth: { provider: 'githb' } }] })).toBe(
      `config test: openapi[0].oauth.provider: no OAuth provider "githb" in the config's oauth.providers (did you mean "github"?)`,
    )
    expect(await refused({ oauth: { providers }, httpSkills: [{ ...get, oauth: { provider: 'github', scope: ['x'] } }] })).toBe(
      'config test: httpSkills[0].oauth: unknown field "scope" (did you mean "scopes"?)',
    )
    expect(await refused({ oauth: { providers }, httpSkills: [{ ...get, oauth: { provider: 'github', scopes: ['a b'] } }] })).toBe(
      'config test: httpSkills[0].oauth.scopes[0]: a scope token (no spaces or quotes)',
    )
    expect(await refused({ oauth: { providers }, httpSkills: [{ ...get, oauth: { provider: 'github', account: 'team' } }] })).toBe(
      'config test: httpSkills[0].oauth.account: an account: person or service',
    )
    expect(await refused({ oauth: { providers }, httpSkills: [{ ...get, headers: { Authorization: 'Bearer x' }, oauth: { provider: 'github' } }] })).toBe(
      'config test: httpSkills[0].headers: oauth sends the authorization header: leave it out of headers',
    )
    expect(await refused({ oauth: { providers }, openapi: [{ name: 'gh', spec: 'gh.yaml', auth: { secret: 'GH' }, oauth: { provider: 'github' } }] })).toBe(
      'config test: openapi[0].oauth: give auth (a secret) or oauth (a connection), not both',
    )
  })

  it("takes a model's prices in its provider settings, or beside a model object, and names what is wrong", async () => {
    const pricing = { inputPerMTok: 3, outputPerMTok: 15, cachedInputPerMTok: 0.3 }
    const resolved = await resolveConfig(
      { agents: [{ name: 'A', model: { provider: 'openai', model: 'gpt-4.1-mini', pricing } }] },
      { dataDir: '/tmp' },
      'test',
    )
    expect(resolved.agents[0]!.model).toMatchObject({ pricing })
    await expect(
      resolveConfig(
        { agents: [{ name: 'A', model: { provider: 'openai', model: 'm', pricing: { inputPerMTok: -1, outputPerMTok: 1 } } }] },
        { dataDir: '/tmp' },
        'test',
      ),
    ).rejects.toThrow('agents[0].model.pricing.inputPerMTok: a price is a number of US dollars from 0')
    // A JavaScript config has no types to catch a missing price: loading does.
    const halfPriced = { provider: 'openai', model: 'm', pricing: { inputPerMTok: 1 } } as unknown as AgentConfig['model']
    await expect(resolveConfig({ agents: [{ name: 'A', model: halfPriced }] }, { dataDir: '/tmp' }, 'test')).rejects.toThrow(
      'agents[0].model.pricing.outputPerMTok',
    )
    await expect(resolveConfig({ agents: [{ name: 'A', model: { provider: 'openai', model: 'm' }, pricing }] }, { dataDir: '/tmp' }, 'test')).rejects.toThrow(
      'agents[0].pricing: give the prices of provider settings as model.pricing',
    )
  })
})
