import type { SkillplaneConfig } from './config-schema.js'

export type { SkillplaneConfig, AgentConfig, AgentModelConfig, ModelProvider, McpServerConfig } from './config-schema.js'

export interface ConfigEnvironment {
  /** The resolved data directory, for skills that keep files of their own. */
  dataDir: string
}

export type ConfigInput = SkillplaneConfig | ((env: ConfigEnvironment) => SkillplaneConfig | Promise<SkillplaneConfig>)

/** Identity helper that types a config file's default export. */
export function defineConfig<T extends ConfigInput>(config: T): T {
  return config
}
