import type { ConfigEnvironment, ConfigInput } from './define-config.js'
import { ConfigError } from './config-error.js'
import { configSchema, type ResolvedConfig } from './config-schema.js'

export type { ResolvedConfig, ResolvedAgent, ResolvedModel, ResolvedMcpServer } from './config-schema.js'

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
    const problems = parsed.error.issues.map((i) => `${formatPath(i.path) || '(root)'}: ${i.message}`)
    throw new ConfigError(`config ${source}: ${problems.join('; ')}`)
  }
  const resolved = parsed.data
  checkAgents(resolved.agents, source)
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
