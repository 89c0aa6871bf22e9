import type { ResolvedAgent, ResolvedModel } from '../config/index.js'

const DEFAULT_KEY_ENV: Record<ResolvedModel['provider'], string | undefined> = {
  openai: 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
  'openai-compatible': undefined,
}

/** The environment variable that holds the agent's API key, when its provider needs one. */
export function apiKeyEnv(settings: ResolvedModel): string | undefined {
  return settings.apiKeyEnv ?? DEFAULT_KEY_ENV[settings.provider]
}

/**
 * Why the agent's runs would be refused now (no model, an unset API key variable), or null when
 * it can run: asked before a run starts, and by the agents API so nobody presses Start in vain.
 */
export function runRefusal(agent: ResolvedAgent): string | null {
  const settings = agent.model
  if (!settings) return `agent "${agent.name}" has no model: set agents[].model in the config ({ provider, model })`
  // An AI SDK model object brings its own credentials.
  if (!('provider' in settings) || typeof (settings as { doGenerate?: unknown }).doGenerate === 'function') return null
  const { provider, model } = settings as ResolvedModel
  const keyEnv = apiKeyEnv(settings as ResolvedModel)
  if (keyEnv && !process.env[keyEnv]) {
    return `agent "${agent.name}": the environment variable ${keyEnv} holding the ${provider} API key is not set (model ${provider}/${model})`
  }
  return null
}
