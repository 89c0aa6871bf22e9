export { defineConfig, type SkillplaneConfig, type AgentConfig, type ConfigInput, type ConfigEnvironment } from './define-config.js'
export { resolveConfig, type ResolvedConfig } from './resolve-config.js'
export { findConfigFile, loadConfigFile, DEFAULT_CONFIG_FILES } from './load-config.js'
export { ConfigError } from './config-error.js'
