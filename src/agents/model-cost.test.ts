import { describe, expect, it } from 'vitest'
import type { ResolvedAgent } from '../config/index.js'
import { applyOverrides } from './apply-overrides.js'
import { pricingOf } from './model-cost.js'

const pricing = { inputPerMTok: 3, outputPerMTok: 15 }
const agent = {
  name: 'A',
  aliases: [],
  description: '',
  skills: [],
  maxSteps: 10,
  sampling: { maxRequestsPerCall: 10, maxTokens: 4096 },
  model: { provider: 'openai', model: 'gpt-4.1-mini', pricing },
} as ResolvedAgent

describe("a model's prices", () => {
  it('are those of its provider settings, and none once a test run changes the model', () => {
    expect(pricingOf(agent)).toEqual(pricing)
    expect(pricingOf(applyOverrides(agent, { systemPrompt: 'Be brief.' }))).toEqual(pricing)
    const other = applyOverrides(agent, { 'model.model': 'gpt-4.1' })
    expect(other.model).toEqual({ provider: 'openai', model: 'gpt-4.1' })
    expect(pricingOf(other)).toBeUndefined()
  })
})
