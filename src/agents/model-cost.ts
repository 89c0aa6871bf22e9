import type { LanguageModelUsage } from 'ai'
import type { ResolvedAgent, ResolvedModel } from '../config/index.js'

/** A model's prices in US dollars per million tokens, as configured (`model.pricing`). */
export type ModelPricing = NonNullable<ResolvedModel['pricing']>

/** The agent's configured prices: its provider settings', or those given beside a model object. */
export function pricingOf(agent: ResolvedAgent): ModelPricing | undefined {
  const model = agent.model as Partial<ResolvedModel> | undefined
  return model?.pricing ?? agent.pricing
}

/**
 * What one model step cost, in US dollars: null without prices, or when the provider reported no
 * input or output tokens. Input read from or written to the cache is priced apart when the prices
 * say so (at the input price otherwise); reasoning tokens are output tokens.
 */
export function modelCost(pricing: ModelPricing | undefined, usage: LanguageModelUsage): number | null {
  if (!pricing || usage.inputTokens === undefined || usage.outputTokens === undefined) return null
  const cacheRead = usage.inputTokenDetails?.cacheReadTokens ?? 0
  const cacheWrite = usage.inputTokenDetails?.cacheWriteTokens ?? 0
  const uncached = usage.inputTokenDetails?.noCacheTokens ?? Math.max(0, usage.inputTokens - cacheRead - cacheWrite)
  const dollars =
    uncached * pricing.inputPerMTok +
    cacheRead * (pricing.cachedInputPerMTok ?? pricing.inputPerMTok) +
    cacheWrite * (pricing.cacheWritePerMTok ?? pricing.inputPerMTok) +
    usage.outputTokens * pricing.outputPerMTok
  return dollars / 1_000_000
}
