import type { LanguageModelV3 } from '@ai-sdk/provider'
import { createAnthropic } from '@ai-sdk/anthropic'
import { createOpenAI } from '@ai-sdk/openai'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import type { ResolvedAgent, ResolvedModel } from '../config/index.js'
import { RunError } from './run-error.js'

const DEFAULT_KEY_ENV: Record<ResolvedModel['provider'], string | undefined> = {
  openai: 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
  'openai-compatible': undefined,
}

/**
 * The agent's language model, or a RunError saying what is missing (no model, an unset API key
 * variable) before anything runs.
 */
export function createModel(agent: ResolvedAgent): LanguageModelV3 {
  const settings = agent.model
  if (!settings) throw new RunError(`agent "${agent.name}" has no model: set agents[].model in the config ({ provider, model })`, 'unavailable')
  if (!('provider' in settings) || typeof (settings as { doGenerate?: unknown }).doGenerate === 'function') return settings as LanguageModelV3
  const { provider, model, baseURL } = settings as ResolvedModel
  const keyEnv = (settings as ResolvedModel).apiKeyEnv ?? DEFAULT_KEY_ENV[provider]
  const apiKey = keyEnv ? process.env[keyEnv] : undefined
  if (keyEnv && !apiKey) {
    throw new RunError(
      `agent "${agent.name}": the environment variable ${keyEnv} holding the ${provider} API key is not set (model ${provider}/${model})`,
      'unavailable',
    )
  }
  switch (provider) {
    case 'openai':
      return createOpenAI({ apiKey, ...(baseURL && { baseURL }) }).chat(model)
    case 'anthropic':
      return createAnthropic({ apiKey, ...(baseURL && { baseURL }) })(model)
    case 'openai-compatible':
      return createOpenAICompatible({ name: 'openai-compatible', baseURL: baseURL!, ...(apiKey && { apiKey }) })(model)
  }
}
