import type { EmbeddingModel } from 'ai'
import type { ResolvedConfig } from '../config/index.js'
import { createOpenAI } from '@ai-sdk/openai'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'

/** Where discovery's semantic leg gets vectors: a name (stored beside each vector) and a batch call. */
export interface Embedder {
  id: string
  embed(values: string[], signal?: AbortSignal): Promise<number[][]>
}

/** `discovery.embedding` as the config resolved it: provider settings, or an AI SDK embedding model object. */
export type EmbeddingSettings = NonNullable<ResolvedConfig['discovery']['embedding']>

/** The embedder for the config's settings; an unset API key variable is an error naming it. */
export function createEmbedder(settings: EmbeddingSettings): Embedder {
  const model = embeddingModel(settings)
  return {
    id: `${model.provider}/${model.modelId}`,
    embed: async (values, signal) => {
      // Loaded on first use: the AI SDK is heavy, and most commands never embed anything.
      const { embedMany } = await import('ai')
      return (await embedMany({ model, values, maxRetries: 1, abortSignal: signal })).embeddings
    },
  }
}

function embeddingModel(settings: EmbeddingSettings): Exclude<EmbeddingModel, string> {
  if ('doEmbed' in settings) return settings
  const keyEnv = settings.apiKeyEnv ?? (settings.provider === 'openai' ? 'OPENAI_API_KEY' : undefined)
  const apiKey = keyEnv ? process.env[keyEnv] : undefined
  if (keyEnv && !apiKey) throw new Error(`discovery.embedding: the environment variable ${keyEnv} holding the ${settings.provider} API key is not set`)
  if (settings.provider === 'openai') return createOpenAI({ apiKey, ...(settings.baseURL && { baseURL: settings.baseURL }) }).embeddingModel(settings.model)
  if (!settings.baseURL) throw new Error('discovery.embedding: openai-compatible needs the base URL of its API (baseURL)')
  return createOpenAICompatible({ name: 'openai-compatible', baseURL: settings.baseURL, ...(apiKey && { apiKey }) }).embeddingModel(settings.model)
}
