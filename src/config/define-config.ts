import type { z } from 'zod'
import type { agentSchema, configSchema, httpServerSchema, httpSkillSchema, openApiSourceSchema, stdioServerSchema, ServiceStart } from './config-schema.js'

// Named interfaces over the schema's input side, so that editors show their names, not the expansion.
// (The members restated here only name the element types; `extends` checks they match the schema.)

/** What skillplane.config.ts exports (or its factory returns): every field optional, unknown fields refused. */
export interface SkillplaneConfig extends z.input<typeof configSchema> {
  agents?: AgentConfig[]
  mcpServers?: McpServerConfig[]
  httpSkills?: HttpSkillConfig[]
  openapi?: OpenApiSourceConfig[]
  services?: ServiceConfig[]
}

/** A named consumer of skills; with a `model` it can be run. */
export interface AgentConfig extends z.input<typeof agentSchema> {}

/** A local server started as a subprocess (`command`: stdio), or a remote one (`url`: Streamable HTTP). */
export type McpServerConfig = z.input<typeof stdioServerSchema> | z.input<typeof httpServerSchema>

/** A declarative HTTP call as a skill (docs/http-skills.md). */
export interface HttpSkillConfig extends z.input<typeof httpSkillSchema> {}

/** An OpenAPI document whose operations become skills (docs/http-skills.md). */
export interface OpenApiSourceConfig extends z.input<typeof openApiSourceSchema> {}

/** Something `serve` and `mcp` run beside the server: started before the skill sources, stopped after them. */
export interface ServiceConfig {
  /** Named in logs and errors. */
  name: string
  /** Start it (listen, spawn, connect); return a function that stops it, if it needs stopping. */
  start: ServiceStart
}

export interface ConfigEnvironment {
  /** The resolved data directory, for skills that keep files of their own. */
  dataDir: string
}

export type ConfigInput = SkillplaneConfig | ((env: ConfigEnvironment) => SkillplaneConfig | Promise<SkillplaneConfig>)

/** Identity helper that types a config file's default export. */
export function defineConfig<T extends ConfigInput>(config: T): T {
  return config
}
