import type { LanguageModelV3 } from '@ai-sdk/provider'
import type { DefinedSkill } from '../skill/define-skill.js'

export interface AgentConfig {
  /** Display name, e.g. "Fleet Autonomy"; its id is the kebab-case slug ("fleet-autonomy"). */
  name: string
  aliases?: string[]
  description?: string
  /** The model the agent runs with (`skillplane run`), or an AI SDK language model object. */
  model?: AgentModelConfig | LanguageModelV3
  /** Its instructions; the instruction-skill catalog it may use is appended. */
  systemPrompt?: string
  /** Most model steps (tool rounds) in one run. Default 10. */
  maxSteps?: number
}

export type ModelProvider = 'openai' | 'anthropic' | 'openai-compatible'

export interface AgentModelConfig {
  provider: ModelProvider
  /** The provider's model id, e.g. "gpt-4.1-mini" or "claude-sonnet-4-5". */
  model: string
  /**
   * The environment variable holding the API key. Default OPENAI_API_KEY or ANTHROPIC_API_KEY;
   * none for openai-compatible (a local server may need no key).
   */
  apiKeyEnv?: string
  /** The API's base URL: required for openai-compatible, optional otherwise (a proxy). */
  baseURL?: string
}

export interface SkillplaneConfig {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each skill has its own schemas
  skills?: DefinedSkill<any, any>[]
  agents?: AgentConfig[]
  defaults?: {
    /** Deadline of a call when the skill sets none. Default 30 000. */
    timeoutMs?: number
  }
  audit?: {
    /** Results larger than this (UTF-8 bytes of their JSON) are stored truncated. Default 65 536. */
    maxResultBytes?: number
  }
  http?: {
    /** Largest accepted request body. Default 1 MiB. */
    maxBodyBytes?: number
    /**
     * Host names (no port) `/mcp` answers to. Default: localhost, 127.0.0.1 and [::1] when bound to
     * a loopback address, any name otherwise (list the names your clients use behind a proxy).
     */
    allowedHosts?: string[]
    /** Browser origins (`https://app.example.com`) allowed on `/mcp` beside those of the allowed hosts. */
    allowedOrigins?: string[]
  }
  approvals?: {
    /** A pending request expires after this long. Default 24 h. */
    expiresAfterMs?: number
    /** How long a call with `wait: true` waits for the decision. Default 180 000. */
    waitTimeoutMs?: number
    /** Receives a JSON POST when a request is created and when it is decided. */
    webhookUrl?: string
  }
  /**
   * Folders of SKILL.md instruction skills (a skill folder, or a folder of them), relative to the
   * working directory; `agents` may see every skill under that folder.
   */
  skillDirs?: Array<string | { path: string; agents?: string[] }>
  /** Folders of skill packs (folders with skill.json), relative to the working directory. */
  packDirs?: string[]
  /** Variables SKILL.md.template files may use as {{vars.NAME}}. */
  templateVars?: Record<string, string>
  /** Also load the project's conventional `.agents/skills` folder. Default false. */
  projectSkills?: boolean
  /** How run_skill_script runs an instruction skill's scripts. */
  skillScripts?: {
    /** Environment variables passed through (besides a minimal PATH). Default none. */
    envAllow?: string[]
    /** Deadline of one script run. Default 60 000. */
    timeoutMs?: number
  }
  /** MCP servers whose tools become skills keyed `<name>_<tool>`, gated and audited like any other. */
  mcpServers?: McpServerConfig[]
  /** Ed25519 public keys (PEM) whose signatures make an SOP valid. */
  sopKeys?: Array<{ name: string; publicKey: string }>
}

interface McpServerCommon {
  /** lower_snake: the prefix of its skill keys and their category. */
  name: string
  /** Agents bound to every tool of this server. */
  agents?: string[]
  /** Per tool (by the server's tool name): a class instead of the one its annotations imply, more agents. */
  tools?: Record<string, { class?: 'safe' | 'mutating' | 'dangerous'; agents?: string[] }>
  /** Deadline of one call. Default: `defaults.timeoutMs`. */
  timeoutMs?: number
  /** How long connecting (and listing tools) may take. Default 10 000. */
  connectTimeoutMs?: number
}

/** A local server started as a subprocess (stdio), or a remote one (Streamable HTTP). */
export type McpServerConfig =
  | (McpServerCommon & { command: string; args?: string[]; env?: Record<string, string>; cwd?: string })
  | (McpServerCommon & { url: string; headers?: Record<string, string> })

export interface ConfigEnvironment {
  /** The resolved data directory, for skills that keep files of their own. */
  dataDir: string
}

export type ConfigInput = SkillplaneConfig | ((env: ConfigEnvironment) => SkillplaneConfig | Promise<SkillplaneConfig>)

/** Identity helper that types a config file's default export. */
export function defineConfig<T extends ConfigInput>(config: T): T {
  return config
}
