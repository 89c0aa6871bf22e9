import type { LanguageModelV3 } from '@ai-sdk/provider'
import type { ResolvedAgent, ResolvedModel } from '../config/index.js'

/** What an agent runs with, as people read it: provider and model id, never its key variable or URL. */
export interface ModelLabel {
  provider: string
  model: string
}

export function describeModel(model: ResolvedAgent['model']): ModelLabel | null {
  if (!model) return null
  // An AI SDK model object names itself; provider settings say what they are.
  if (typeof (model as { doGenerate?: unknown }).doGenerate === 'function') {
    const object = model as LanguageModelV3
    return { provider: object.provider, model: object.modelId }
  }
  const settings = model as ResolvedModel
  return { provider: settings.provider, model: settings.model }
}
