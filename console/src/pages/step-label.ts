import type { RunStep } from '../api/types'

const LABELS: Record<RunStep['kind'], (step: RunStep) => string> = {
  model: (step) => `model ${step.model?.modelId ?? ''}`,
  tool: (step) => `tool ${step.tool ?? ''}`,
  sampling: (step) => `sampling for ${step.tool ?? ''}`,
  input: (step) => `input for ${step.tool ?? ''}`,
  text: () => 'answer',
}

/** What a step did, in a few words: the model it called, the tool it called, what a tool asked of the run, or that it answered. */
export const stepLabel = (step: RunStep): string => LABELS[step.kind](step).trimEnd()
