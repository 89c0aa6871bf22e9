import type { RunStep } from '../api/types'

/** What a step did, in a few words: the model it called, the tool it called, or that it answered. */
export const stepLabel = (step: RunStep): string =>
  step.kind === 'model' ? `model ${step.model?.modelId ?? ''}`.trimEnd() : step.kind === 'tool' ? `tool ${step.tool ?? ''}`.trimEnd() : 'answer'
