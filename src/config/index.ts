export {
  defineConfig,
  type SkillplaneConfig,
  type AgentConfig,
  type McpServerConfig,
  type HttpSkillConfig,
  type OpenApiSourceConfig,
  type ServiceConfig,
  type ConfigInput,
  type ConfigEnvironment,
} from './define-config.js'
export {
  resolveConfig,
  type ResolvedConfig,
  type ResolvedAgent,
  type ResolvedMcpServer,
  type ResolvedModel,
  type ResolvedHttpSkill,
  type ResolvedOpenApiSource,
  type ResolvedOidc,
  type ResolvedOAuthProvider,
} from './resolve-config.js'
export { findConfigFile, loadConfigFile, DEFAULT_CONFIG_FILES } from './load-config.js'
export { ConfigError } from './config-error.js'
export { providerNames, unknownProvider } from './unknown-provider.js'
export type { ServiceStart, ServiceStop } from './config-schema.js'
export { createLogger } from './create-logger.js'
export { startServices, type RunningServices } from './start-services.js'
