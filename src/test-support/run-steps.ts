import type { RunStep } from '../agents/index.js'

/** A run's text and tool steps: what it did, without the model calls between them. */
export const workSteps = (run: { steps?: RunStep[] }): RunStep[] => (run.steps ?? []).filter((step) => step.kind !== 'model')
