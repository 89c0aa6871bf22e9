import type { LanguageModelV3 } from '@ai-sdk/provider'
import { createAnthropic } from '@ai-sdk/anthropic'
import { createOpenAI } from '@ai-sdk/openai'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import type { ResolvedAgent, ResolvedModel } from '../config/index.js'
import { RunError } from './run-error.js'
import { apiKeyEnv, runRefusal } from './run-refusal.js'

/**
 * The agent's language model, or a RunError saying what is missing (no model, an unset API key
 * variable) before anything runs.
 */
export function createModel(agent: ResolvedAgent): LanguageModelV3 {
  const refused = runRefusal(agent)
  if (refused) throw new RunError(refused, 'unavailable')
  const settings = agent.model!
  if (!('provider' in settings) || typeof (settings as { doGenerate?: unknown }).doGenerate === 'function') return settings as LanguageModelV3
  const { provider, model, baseURL } = settings as ResolvedModel
  const keyEnv = apiKeyEnv(settings as ResolvedModel)
  const apiKey = keyEnv ? process.env[keyEnv] : undefined
  switch (provider) {
    case 'openai':
      return createOpenAI({ apiKey, ...(baseURL && { baseURL }) }).chat(model)
    case 'anthropic':
      return createAnthropic({ apiKey, ...(baseURL && { baseURL }) })(model)
    case 'openai-compatible':
      return createOpenAICompatible({ name: 'openai-compatible', baseURL: baseURL!, ...(apiKey && { apiKey }) })(model)
  }
}
