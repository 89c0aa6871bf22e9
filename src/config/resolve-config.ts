import type { z } from 'zod'
import type { ConfigEnvironment, ConfigInput } from './define-config.js'
import {
  configSchema,
  type agentSchema,
  type httpSkillSchema,
  type mcpServerSchema,
  type modelSettingsSchema,
  type openApiSourceSchema,
} from './config-schema.js'
import { ConfigError } from './config-error.js'
import { providerNames, unknownProvider } from './unknown-provider.js'

// Named interfaces over the schema's output side: the config with its defaults filled in.
// (The members restated here only name the element types; `extends` checks they match the schema.)

export interface ResolvedConfig extends z.output<typeof configSchema> {
  agents: ResolvedAgent[]
  mcpServers: ResolvedMcpServer[]
  httpSkills: ResolvedHttpSkill[]
  openapi: ResolvedOpenApiSource[]
}

export interface ResolvedAgent extends z.output<typeof agentSchema> {}

export interface ResolvedModel extends z.output<typeof modelSettingsSchema> {}

export type ResolvedMcpServer = z.output<typeof mcpServerSchema>

export interface ResolvedHttpSkill extends z.output<typeof httpSkillSchema> {}

export interface ResolvedOpenApiSource extends z.output<typeof openApiSourceSchema> {}

/** The identity provider's settings (`auth.oidc`), defaults filled in. */
export type ResolvedOidc = NonNullable<z.output<typeof configSchema>['auth']['oidc']>

/** One OAuth provider's settings (`oauth.providers.NAME`), defaults filled in. */
export type ResolvedOAuthProvider = z.output<typeof configSchema>['oauth']['providers'][string]

/** Validate a config (object or factory) and fill in defaults; errors name the field. */
export async function resolveConfig(input: ConfigInput, env: ConfigEnvironment, source: string): Promise<ResolvedConfig> {
  let config: unknown = input
  if (typeof input === 'function') {
    try {
      config = await input(env)
    } catch (error) {
      throw new ConfigError(`config ${source}: its factory function threw: ${(error as Error).message}`)
    }
  }
  if (config === null || typeof config !== 'object') {
    throw new ConfigError(`config ${source}: the default export must be an object or a function returning one`)
  }
  const parsed = configSchema.safeParse(config)
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => (i.path.length ? `${formatPath(i.path)}: ${i.message}` : i.message))
    throw new ConfigError(`config ${source}: ${problems.join('; ')}`)
  }
  const resolved: ResolvedConfig = parsed.data
  checkAgents(resolved.agents, source)
  const unknown = sourceProviderProblems(resolved)
  if (unknown.length > 0) throw new ConfigError(`config ${source}: ${unknown.join('; ')}`)
  return resolved
}

function checkAgents(agents: ResolvedConfig['agents'], source: string): void {
  const seen = new Map<string, string>()
  for (const agent of agents) {
    for (const label of [agent.name, ...agent.aliases]) {
      const key = label.toLowerCase()
      const owner = seen.get(key)
      if (owner !== undefined && owner !== agent.name) {
        throw new ConfigError(`config ${source}: agent name or alias "${label}" is used by both "${owner}" and "${agent.name}"`)
      }
      seen.set(key, agent.name)
    }
  }
}

function formatPath(path: ReadonlyArray<PropertyKey>): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('')
}

/** Each code skill's, HTTP skill's and OpenAPI source's `oauth` names a configured provider: the problems, by config path. */
function sourceProviderProblems(config: ResolvedConfig): string[] {
  const providers = providerNames(config)
  const declared = [
    // An imported MCP server's own authorization server (mcp:NAME) is registered by its source, not the config.
    ...config.skills.map((s, i) => [`skills[${i}] (${s.key}).oauth.provider`, s.oauth?.provider.startsWith('mcp:') ? undefined : s.oauth?.provider] as const),
    ...config.httpSkills.map((s, i) => [`httpSkills[${i}].oauth.provider`, s.oauth?.provider] as const),
    ...config.openapi.map((s, i) => [`openapi[${i}].oauth.provider`, s.oauth?.provider] as const),
  ]
  return declared.flatMap(([path, name]) => {
    const problem = name === undefined ? null : unknownProvider(name, providers)
    return problem ? [`${path}: ${problem}`] : []
  })
}
