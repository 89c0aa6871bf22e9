import { describe, expect, it } from 'vitest'
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { MockLanguageModelV3 } from 'ai/test'
import { z } from 'zod'
import { tempDir } from '../test-support/databases.js'
import { defineSkill } from '../skill/define-skill.js'
import { findConfigFile, loadConfigFile } from './load-config.js'
import { resolveConfig } from './resolve-config.js'
import { ConfigError } from './config-error.js'

const env = { dataDir: '/tmp/data' }

function configFile(body: string, name = 'skillplane.config.ts'): string {
  const dir = tempDir('skillplane-config-')
  mkdirSync(dir, { recursive: true })
  const file = join(dir, name)
  writeFileSync(file, body)
  return file
}

describe('config files', () => {
  it("keeps transpiled configs in the project's own node_modules/.cache, sees an edit at once, and keeps nothing without one", async () => {
    const project = tempDir('skillplane-config-')
    mkdirSync(join(project, 'node_modules'), { recursive: true })
    const file = join(project, 'skillplane.config.ts')
    writeFileSync(file, `const n: number = 1\nexport default { defaults: { timeoutMs: n * 1000 } }\n`)
    expect(await loadConfigFile(file)).toEqual({ defaults: { timeoutMs: 1000 } })
    const cache = join(project, 'node_modules', '.cache', 'skillplane-config')
    expect(readdirSync(cache)).toHaveLength(1)
    writeFileSync(file, `const n: number = 2\nexport default { defaults: { timeoutMs: n * 1000 } }\n`)
    expect(await loadConfigFile(file)).toEqual({ defaults: { timeoutMs: 2000 } })
    // A project without node_modules (tempDir's parents have none): transpiled each time, cached nowhere.
    const bare = configFile('export default { defaults: { timeoutMs: 3000 } }\n')
    expect(await loadConfigFile(bare)).toEqual({ defaults: { timeoutMs: 3000 } })
    expect(existsSync(join(bare, '..', 'node_modules'))).toBe(false)
  })

  it('loads the example config, a TypeScript factory using the package by name', async () => {
    const file = findConfigFile('examples/skillplane.config.ts')!
    const config = await resolveConfig(await loadConfigFile(file), { dataDir: tempDir() }, file)
    expect(config.skills.map((s) => s.key).sort()).toEqual([
      'calculate',
      'depot_whoami',
      'disk_usage',
      'notes_add',
      'notes_digest',
      'notes_list',
      'notes_purge',
    ])
    expect(config.agents.map((a) => a.name)).toEqual(['Fleet Autonomy', 'Notes Assistant'])
    expect(config.defaults.timeoutMs).toBe(30_000)
  })

  it('finds skillplane.config.* in the working directory, and none when absent', () => {
    const file = configFile('export default {}', 'skillplane.config.mjs')
    expect(findConfigFile(undefined, resolve(file, '..'))).toBe(file)
    expect(findConfigFile(undefined, tempDir())).toBeNull()
  })

  it('names a missing file', () => {
    expect(() => findConfigFile('nope/skillplane.config.ts')).toThrow('config file not found: nope/skillplane.config.ts')
  })

  it('names the file and the reason when it does not load', async () => {
    const broken = configFile('export default {\n  skills: [,\n')
    const error = await loadConfigFile(broken).catch((e) => e)
    expect(error).toBeInstanceOf(ConfigError)
    // A syntax error names its line and column, as an editor would.
    expect(error.message).toBe(`cannot load config ${broken}:3:1: ParseError: Unexpected token`)
    const throwing = configFile("throw new Error('no credentials in env')\nexport default {}")
    await expect(loadConfigFile(throwing)).rejects.toThrow(`cannot load config ${throwing}: no credentials in env`)
    const empty = configFile('export const x = 1')
    await expect(loadConfigFile(empty)).rejects.toThrow(/has no default export/)
  })

  it('names the field of a config with the wrong shape', async () => {
    await expect(resolveConfig({ skills: [{ key: 'x' }] } as never, env, 'c.ts')).rejects.toThrow('config c.ts: skills[0]: not a skill made with defineSkill()')
    await expect(resolveConfig({ defaults: { timeoutMs: -1 } }, env, 'c.ts')).rejects.toThrow(/config c\.ts: defaults\.timeoutMs: Too small/)
    await expect(resolveConfig({ agnets: [] } as never, env, 'c.ts')).rejects.toThrow('config c.ts: unknown field "agnets" (did you mean "agents"?)')
    await expect(
      resolveConfig(
        {
          agents: [
            { name: 'A', aliases: ['x'] },
            { name: 'B', aliases: ['X'] },
          ],
        },
        env,
        'c.ts',
      ),
    ).rejects.toThrow('agent name or alias "X" is used by both "A" and "B"')
    await expect(resolveConfig({ mcpServers: [{ name: 'Files', command: 'x' }] }, env, 'c.ts')).rejects.toThrow(
      'config c.ts: mcpServers[0].name: must be lower_snake: lowercase letters, digits and single underscores, starting with a letter (it prefixes the skill keys)',
    )
    await expect(resolveConfig({ mcpServers: [{ name: 'a', command: 'x', url: 'http://h/mcp' }] } as never, env, 'c.ts')).rejects.toThrow(
      'mcpServers[0]: give either command (a stdio server) or url (a Streamable HTTP server)',
    )
    await expect(resolveConfig({ mcpServers: [{ name: 'a', url: 'http://h/mcp', env: { A: 'b' } }] } as never, env, 'c.ts')).rejects.toThrow(
      'mcpServers[0].env: does not apply to a url server',
    )
    await expect(resolveConfig({ mcpServers: [{ name: 'a', url: 'ftp://h/mcp' }] }, env, 'c.ts')).rejects.toThrow(/mcpServers\[0\]\.url: /)
    await expect(resolveConfig({ mcpServers: [{ name: 'a', url: 'https://me:secret@h/mcp' }] }, env, 'c.ts')).rejects.toThrow(
      'mcpServers[0].url: must not carry credentials: put them in headers',
    )
    await expect(resolveConfig({ mcpServers: [{ name: 'a', command: 'x', tools: { t: { class: 'risky' } } }] } as never, env, 'c.ts')).rejects.toThrow(
      /mcpServers\[0\]\.tools\.t\.class: /,
    )
    await expect(resolveConfig({ mcpServers: [{ name: 'a', command: 'x', resources: { class: 'risky' } }] } as never, env, 'c.ts')).rejects.toThrow(
      'mcpServers[0].resources.class: Invalid option: expected one of "safe"|"mutating"|"dangerous"',
    )
    await expect(resolveConfig({ mcpServers: [{ name: 'a', command: 'x', resources: { klass: 'safe' } }] } as never, env, 'c.ts')).rejects.toThrow(
      'mcpServers[0].resources: unknown field "klass" (did you mean "class"?)',
    )
    await expect(
      resolveConfig(
        {
          mcpServers: [
            { name: 'a', command: 'x' },
            { name: 'a', url: 'http://h/mcp' },
          ],
        },
        env,
        'c.ts',
      ),
    ).rejects.toThrow('mcpServers: MCP server names must be unique')
    await expect(
      resolveConfig(
        {
          mcpServers: [
            { name: 'gh', command: 'x' },
            { name: 'gh_enterprise', command: 'y' },
          ],
        },
        env,
        'c.ts',
      ),
    ).rejects.toThrow("mcpServers: an MCP server name must not be another one's followed by _")
    await expect(
      resolveConfig(
        () => {
          throw new Error('boom')
        },
        env,
        'c.ts',
      ),
    ).rejects.toThrow('config c.ts: its factory function threw: boom')
  })

  it("names the field of an agent's model settings, inside the list of agents", async () => {
    const agents = (model: unknown) => ({ agents: [{ name: 'A' }, { name: 'B', model }] }) as never
    await expect(resolveConfig(agents({ provider: 'mistral', model: '' }), env, 'c.ts')).rejects.toThrow(
      "config c.ts: agents[1].model.provider: unknown provider: use openai, anthropic or openai-compatible; agents[1].model.model: the provider's model id is required",
    )
    await expect(resolveConfig(agents({ provider: 'openai-compatible', model: 'llama' }), env, 'c.ts')).rejects.toThrow(
      'config c.ts: agents[1].model.baseURL: openai-compatible needs the base URL of its API',
    )
    await expect(resolveConfig(agents({ provider: 'openai', model: 'm', apiKey: 'sk-1' }), env, 'c.ts')).rejects.toThrow(
      'config c.ts: agents[1].model: unknown field "apiKey" (did you mean "apiKeyEnv"?)',
    )
    await expect(resolveConfig(agents('gpt-4.1-mini'), env, 'c.ts')).rejects.toThrow(
      'config c.ts: agents[1].model: Invalid input: expected object, received string',
    )
    const settings = await resolveConfig(agents({ provider: 'anthropic', model: 'claude-sonnet-4-5', apiKeyEnv: 'MY_KEY' }), env, 'c.ts')
    expect(settings.agents[1]!.model).toEqual({ provider: 'anthropic', model: 'claude-sonnet-4-5', apiKeyEnv: 'MY_KEY' })
  })

  it('keeps skills and AI SDK model objects as the very objects the config holds', async () => {
    const skill = defineSkill({ key: 'echo', description: 'Echo', class: 'safe', input: z.object({ message: z.string() }), run: ({ message }) => message })
    const model = new MockLanguageModelV3()
    const config = await resolveConfig({ skills: [skill], agents: [{ name: 'A', model }] }, env, 'c.ts')
    expect(config.skills[0]).toBe(skill)
    expect(config.agents[0]!.model).toBe(model)
  })

  it('passes the data dir to a factory and fills defaults', async () => {
    const config = await resolveConfig(({ dataDir }) => ({ agents: [{ name: dataDir }] }), env, 'c.ts')
    expect(config.agents).toEqual([
      { name: '/tmp/data', aliases: [], skills: [], description: '', maxSteps: 10, sampling: { maxRequestsPerCall: 10, maxTokens: 4096 } },
    ])
    expect(config.audit.maxResultBytes).toBe(65_536)
    expect(config.http.maxBodyBytes).toBe(1_048_576)
    const servers = await resolveConfig(
      {
        mcpServers: [
          { name: 'a', command: 'x' },
          { name: 'b', url: 'http://h/mcp' },
        ],
      },
      env,
      'c.ts',
    )
    expect(servers.mcpServers).toEqual([
      { name: 'a', transport: 'stdio', command: 'x', args: [], env: {}, agents: [], tools: {}, connectTimeoutMs: 10_000 },
      { name: 'b', transport: 'http', url: 'http://h/mcp', headers: {}, agents: [], tools: {}, connectTimeoutMs: 10_000 },
    ])
  })
})
